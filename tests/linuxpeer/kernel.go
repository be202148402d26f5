// Fetching Debian's cloud kernel with apt, without installing it.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MetaPackage is Debian's meta-package for the cloud kernel: it depends on exactly one
// linux-image-ABI-cloud-amd64 package, the newest apt knows. "cloud" rather than the generic
// flavour: it is the smaller build for virtual machines, and both build virtio as modules.
const MetaPackage = "linux-image-cloud-amd64"

// NetModules are the modules the peer needs for its NIC (QEMU's virtio-net-pci); LoadOrder
// adds what they depend on.
var NetModules = []string{"virtio_pci", "virtio_net"}

// Kernel is an unpacked kernel package.
type Kernel struct {
	Package string // e.g. linux-image-6.1.0-56-cloud-amd64
	Version string // the package version, e.g. 6.1.192-2
	Release string // uname -r, e.g. 6.1.0-56-cloud-amd64
	Dir     string // where the package is unpacked (dpkg-deb -x)
	Vmlinuz string // the bzImage QEMU boots with -kernel
	ModDir  string // lib/modules/RELEASE inside Dir
	Fetched bool   // downloaded by this call (false: found in the cache)
}

// ParseAptShow reads `apt-cache show --no-all-versions linux-image-cloud-amd64` and returns the
// kernel package it depends on and, when the dependency pins one ("(= 6.1.192-2)"), its version.
func ParseAptShow(out []byte) (pkg, version string, err error) {
	var depends string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	inDepends := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" && depends != "" {
			break // the first stanza is the candidate
		}
		if inDepends && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			depends += " " + strings.TrimSpace(line) // a folded field
			continue
		}
		inDepends = false
		if v, ok := strings.CutPrefix(line, "Depends:"); ok {
			depends, inDepends = strings.TrimSpace(v), true
		}
	}
	if depends == "" {
		return "", "", fmt.Errorf("no Depends field in apt-cache show output")
	}
	for _, item := range strings.Split(depends, ",") {
		alt, _, _ := strings.Cut(item, "|") // the first alternative
		alt = strings.TrimSpace(alt)
		name, rest, _ := strings.Cut(alt, " ")
		name, _, _ = strings.Cut(name, ":") // an architecture qualifier
		if !strings.HasPrefix(name, "linux-image-") || name == MetaPackage || strings.ContainsAny(name, "/=()") {
			continue
		}
		rest = strings.TrimSpace(rest)
		if v, ok := strings.CutPrefix(rest, "(="); ok {
			if v, ok = strings.CutSuffix(strings.TrimSpace(v), ")"); ok && validVersion(strings.TrimSpace(v)) {
				version = strings.TrimSpace(v)
			}
		}
		return name, version, nil
	}
	return "", "", fmt.Errorf("no linux-image- package in Depends: %s", clip(depends))
}

// validVersion accepts a Debian version: the characters policy §5.6.12 allows, and no empty one.
func validVersion(v string) bool {
	if v == "" {
		return false
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.ContainsRune(".+-~:", c)) {
			return false
		}
	}
	return true
}

// Fetch makes the newest cloud kernel apt offers available under cache and returns it: it asks
// apt which package the meta-package depends on, and unless that package and version are
// already unpacked in cache, downloads it with `apt-get download` and unpacks it with
// `dpkg-deb -x` — nothing is installed. apt's package lists must know the meta-package: when
// they do not, or name a version the mirror no longer has, Fetch runs `apt-get update` as root
// or with passwordless sudo, and otherwise says to. Progress goes to log.
func Fetch(cache string, log io.Writer) (*Kernel, error) {
	for _, tool := range []string{"apt-cache", "apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found: the Linux peer fetches Debian's kernel with apt (a Debian or Ubuntu host)", tool)
		}
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	updated := false
	update := func(why string) error {
		cmd := []string{"apt-get", "-qq", "update"}
		switch {
		case os.Geteuid() == 0:
		case exec.Command("sudo", "-n", "true").Run() == nil: // passwordless sudo, as make's ensure-qemu
			cmd = append([]string{"sudo", "-n"}, cmd...)
		default:
			return fmt.Errorf("%s; run `sudo apt-get update` and try again", why)
		}
		fmt.Fprintf(log, "linuxpeer: %s: %s\n", why, strings.Join(cmd, " "))
		updated = true
		return run(log, "", cmd[0], cmd[1:]...)
	}
	for {
		out, err := exec.Command("apt-cache", "show", "--no-all-versions", MetaPackage).Output()
		if err != nil || len(bytes.TrimSpace(out)) == 0 {
			if updated {
				return nil, fmt.Errorf("apt does not offer %s even after apt-get update (bookworm's main component is needed)", MetaPackage)
			}
			if err := update("apt does not know " + MetaPackage); err != nil {
				return nil, err
			}
			continue
		}
		pkg, ver, err := ParseAptShow(out)
		if err != nil {
			return nil, fmt.Errorf("apt-cache show %s: %v", MetaPackage, err)
		}
		if ver == "" { // an unpinned dependency: the candidate version of pkg itself
			if out, err := exec.Command("apt-cache", "show", "--no-all-versions", pkg).Output(); err == nil {
				ver = field(out, "Version")
			}
			if !validVersion(ver) {
				return nil, fmt.Errorf("apt-cache show %s: no version", pkg)
			}
		}
		k := &Kernel{Package: pkg, Version: ver, Release: strings.TrimPrefix(pkg, "linux-image-"),
			Dir: filepath.Join(cache, pkg+"_"+strings.ReplaceAll(ver, ":", "%3a"))}
		if _, err := os.Stat(filepath.Join(k.Dir, ".complete")); err == nil {
			return k, k.locate()
		}
		dlErr := download(log, cache, k)
		if dlErr == nil {
			k.Fetched = true
			return k, k.locate()
		}
		if updated {
			return nil, dlErr
		}
		if err := update(fmt.Sprintf("downloading %s %s failed (stale package lists?)", pkg, ver)); err != nil {
			return nil, fmt.Errorf("%v; %v", dlErr, err)
		}
	}
}

// download fetches k.Package=k.Version into cache and unpacks it into k.Dir; other kernels
// unpacked there before are removed (each is ~100 MB).
func download(log io.Writer, cache string, k *Kernel) error {
	fmt.Fprintf(log, "linuxpeer: downloading %s %s (apt-get download; nothing is installed)\n", k.Package, k.Version)
	tmp, err := os.MkdirTemp(cache, "download")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// As root, apt hands the download to its sandbox user _apt, which may not write here;
	// downloading as root avoids the warning (as a normal user there is no sandbox anyway).
	if err := run(log, tmp, "apt-get", "-qq", "-o", "APT::Sandbox::User=root", "download", k.Package+"="+k.Version); err != nil {
		return err
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, k.Package+"_*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download %s: expected one .deb, found %d", k.Package, len(debs))
	}
	unpacked := filepath.Join(tmp, "root")
	if err := run(log, "", "dpkg-deb", "-x", debs[0], unpacked); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(unpacked, ".complete"), []byte(filepath.Base(debs[0])+"\n"), 0o644); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(cache, "linux-image-*"))
	for _, o := range old {
		os.RemoveAll(o)
	}
	return os.Rename(unpacked, k.Dir)
}

// locate finds the bzImage and the modules directory in the unpacked package.
func (k *Kernel) locate() error {
	k.Vmlinuz = filepath.Join(k.Dir, "boot", "vmlinuz-"+k.Release)
	if _, err := os.Stat(k.Vmlinuz); err != nil {
		return fmt.Errorf("%s: no kernel image in the package: %v", k.Package, err)
	}
	for _, d := range []string{"lib/modules", "usr/lib/modules"} { // before and after usrmerge
		p := filepath.Join(k.Dir, d, k.Release)
		if _, err := os.Stat(filepath.Join(p, "modules.order")); err == nil {
			k.ModDir = p
			return nil
		}
	}
	return fmt.Errorf("%s: no lib/modules/%s/modules.order in the package", k.Package, k.Release)
}

// Modules returns the modules to load for want, dependencies first: those the kernel has
// built in (modules.builtin) are left out, the others are looked up in modules.order and
// checked — uncompressed, built for this release.
func (k *Kernel) Modules(want []string) ([]Module, error) {
	read := func(name string) (map[string]string, error) {
		b, err := os.ReadFile(filepath.Join(k.ModDir, name))
		if err != nil {
			return nil, err
		}
		m, err := ParseModuleList(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return m, nil
	}
	order, err := read("modules.order")
	if err != nil {
		return nil, err
	}
	builtin, err := read("modules.builtin")
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var loadable []string
	for _, w := range want {
		if _, ok := builtin[ModName(w)]; !ok {
			loadable = append(loadable, w)
		}
	}
	return LoadOrder(loadable, func(name string) (Module, error) {
		p, ok := order[name]
		if !ok {
			return Module{}, fmt.Errorf("not in modules.order of %s", k.Release)
		}
		if !strings.HasSuffix(p, ".ko") {
			return Module{}, fmt.Errorf("%s is compressed; the peer's /init loads plain .ko files", p)
		}
		f, err := os.Open(filepath.Join(k.ModDir, p))
		if err != nil {
			return Module{}, err
		}
		defer f.Close()
		mi, err := ReadModinfo(f)
		if err != nil {
			return Module{}, fmt.Errorf("%s: %v", p, err)
		}
		if mi.Name != "" && mi.Name != name {
			return Module{}, fmt.Errorf("%s calls itself %q", p, mi.Name)
		}
		if rel, _, _ := strings.Cut(mi.Vermagic, " "); rel != k.Release {
			return Module{}, fmt.Errorf("%s is built for %q, not %s", p, rel, k.Release)
		}
		return Module{Name: name, Path: p, Depends: mi.Depends}, nil
	})
}

// field returns the first "Key: value" of an apt stanza.
func field(out []byte, key string) string {
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// run runs a command with its output on log.
func run(log io.Writer, dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return nil
}
