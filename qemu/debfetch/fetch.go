// Fetch: apt-get update, apt-get download and dpkg-deb -x under a private apt configuration.
// SPDX-License-Identifier: BSD-3-Clause

package debfetch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// Mirror is the archive Fetch downloads from: Debian's CDN, which redirects to a nearby mirror.
const Mirror = "http://deb.debian.org/debian"

// Keyring is the key ring that signs Mirror's Release files (package debian-archive-keyring).
// The sources.list line names it with signed-by, so apt trusts these keys for this source only,
// whatever the host's trusted.gpg.d holds.
const Keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"

// tailLines is how much of a failing tool's output an error carries: enough for apt's "E:" lines
// and the "Err:" line above them.
const tailLines = 12

// Names as Debian spells them (Debian Policy §5.6.1 for packages; suites and components are
// plain words). Checked because they end up in sources.list and on command lines.
var (
	pkgName  = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)
	wordName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// Fetch downloads the Debian package pkg from suite's component (e.g. "bookworm",
// "non-free-firmware", "raspi-firmware") and unpacks it into cacheDir/root-PKG, which it returns.
// A tree unpacked before from the same suite and component is returned without network access.
// log, if not nil, receives a line for each step that may take a while.
func Fetch(cacheDir, suite, component, pkg string, log func(string)) (root string, err error) {
	if log == nil {
		log = func(string) {}
	}
	if !pkgName.MatchString(pkg) || !wordName.MatchString(suite) || !wordName.MatchString(component) {
		return "", fmt.Errorf("debfetch: %q %q %q: want a Debian suite, component and package name", suite, component, pkg)
	}
	if cacheDir, err = filepath.Abs(cacheDir); err != nil {
		return "", fmt.Errorf("debfetch: %w", err)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("debfetch: %w", err)
	}
	unlock, err := lock(filepath.Join(cacheDir, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()

	root = filepath.Join(cacheDir, "root-"+pkg)
	stamp := root + ".stamp"
	origin := suite + " " + component + "\n"
	if b, err := os.ReadFile(stamp); err == nil && strings.HasPrefix(string(b), origin) {
		if fi, err := os.Stat(root); err == nil && fi.IsDir() {
			return root, nil
		}
	}

	if err := checkTools(); err != nil {
		return "", err
	}
	c := aptConfig(cacheDir, suite, component, os.Geteuid() == 0)
	if err := c.create(); err != nil {
		return "", fmt.Errorf("debfetch: %w", err)
	}

	log(fmt.Sprintf("debfetch: apt-get update (%s %s %s)", Mirror, suite, component))
	if err := run("", "apt-get", c.command("update")...); err != nil {
		return "", err
	}

	// The download directory holds only this package's .deb afterwards, so the glob below
	// cannot pick up a version left there by an earlier Fetch.
	old, _ := filepath.Glob(filepath.Join(c.debs, pkg+"_*.deb"))
	for _, f := range old {
		os.Remove(f)
	}
	log("debfetch: apt-get download " + pkg)
	if err := run(c.debs, "apt-get", c.command("download", pkg)...); err != nil {
		return "", err
	}
	debs, _ := filepath.Glob(filepath.Join(c.debs, pkg+"_*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("debfetch: apt-get download %s succeeded but left %d %s_*.deb files in %s", pkg, len(debs), pkg, c.debs)
	}

	// Unpack next to the final place and rename, then write the stamp: the stamp exists only
	// once the whole tree does.
	os.Remove(stamp)
	tmp := root + ".tmp"
	for _, d := range []string{root, tmp} {
		if err := os.RemoveAll(d); err != nil {
			return "", fmt.Errorf("debfetch: %w", err)
		}
	}
	log("debfetch: dpkg-deb -x " + filepath.Base(debs[0]))
	if err := run("", "dpkg-deb", "-x", debs[0], tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil {
		return "", fmt.Errorf("debfetch: %w", err)
	}
	if err := writeFileAtomic(stamp, origin+filepath.Base(debs[0])+"\n"); err != nil {
		return "", fmt.Errorf("debfetch: %w", err)
	}
	return root, nil
}

// checkTools says which of Debian's tools are missing, if any.
func checkTools() error {
	var missing []string
	for _, t := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("debfetch: %s not found: fetching a Debian package needs Debian's apt-get and dpkg-deb (packages apt and dpkg; a Debian or Ubuntu host has them)", strings.Join(missing, " and "))
	}
	if _, err := os.Stat(Keyring); err != nil {
		return fmt.Errorf("debfetch: %s is missing: it checks the Debian archive's signatures (apt-get install -y debian-archive-keyring)", Keyring)
	}
	return nil
}

// run runs a tool in dir (the current directory if empty) and turns a failure into an error
// that carries the last lines of its output.
func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("debfetch: %s %s: %v\n%s", name, lastArgs(args), err, tail(out.String(), tailLines))
	}
	return nil
}

// lastArgs is the part of a command line worth repeating in an error: the apt-get command and
// its operand, not the two dozen options before them.
func lastArgs(args []string) string {
	if len(args) > 2 {
		args = args[len(args)-2:]
		if strings.HasPrefix(args[0], "-") || strings.Contains(args[0], "=") {
			args = args[1:]
		}
	}
	return strings.Join(args, " ")
}

// tail is the last n lines of s, indented for an error message.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\t" + strings.Join(lines, "\n\t")
}

// lock takes an exclusive flock on path, waiting for another Fetch on the same cache directory
// to finish; the returned function releases it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("debfetch: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("debfetch: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// writeFileAtomic writes data to path through a temporary file and a rename, so that path
// either holds all of data or does not exist.
func writeFileAtomic(path, data string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
