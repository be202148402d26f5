// Kernel modules: which .ko files the initramfs needs, and the order to load them in.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"path"
	"strings"
)

// Why modules at all: Debian's kernels (the cloud flavour as the generic one) build VIRTIO,
// VIRTIO_PCI and VIRTIO_NET as modules (=m); only the serial console is built in. Without the
// modules the guest has no NIC. Debian's package ships no modules.dep — depmod writes it when
// the package is installed, and we do not install it — so the dependencies come from each
// module's own .modinfo section, the "depends=" field that modpost writes and depmod reads.

// Module is one loadable kernel module.
type Module struct {
	Name    string   // as the kernel calls it: the file name without .ko, '-' written '_'
	Path    string   // relative to the modules directory, e.g. kernel/drivers/net/virtio_net.ko
	Depends []string // the modules it needs loaded first (its modinfo "depends=")
}

// ModName normalizes a module name as the kernel does: '-' and '_' are the same.
func ModName(s string) string { return strings.ReplaceAll(s, "-", "_") }

// ParseModuleList reads modules.order or modules.builtin: one path per line, relative to the
// modules directory (kernel/drivers/virtio/virtio.ko). It returns name → path. A compressed
// module (.ko.xz, .ko.zst, .ko.gz) keeps its suffix in the path; blank lines are skipped and a
// line that does not name a .ko file is an error.
func ParseModuleList(data []byte) (map[string]string, error) {
	mods := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		p := strings.TrimSpace(line)
		if p == "" {
			continue
		}
		name, ok := moduleNameOf(p)
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not a module path", i+1, clip(p))
		}
		if _, dup := mods[name]; !dup { // the first one wins, as for modprobe
			mods[name] = p
		}
	}
	return mods, nil
}

// moduleNameOf returns the module name of a path such as kernel/net/core/failover.ko.
func moduleNameOf(p string) (string, bool) {
	base := path.Base(p)
	for _, z := range []string{"", ".xz", ".zst", ".gz"} {
		if n, ok := strings.CutSuffix(base, ".ko"+z); ok && n != "" {
			return ModName(n), true
		}
	}
	return "", false
}

// Modinfo is what a module says about itself in its .modinfo section.
type Modinfo struct {
	Name     string   // "name="
	Depends  []string // "depends=", split at commas (none: an empty list)
	Vermagic string   // "vermagic=": the kernel release first, e.g. "6.1.0-56-cloud-amd64 SMP ..."
}

// ParseModinfo parses a .modinfo section: NUL-separated KEY=VALUE strings (the padding between
// them is NULs as well).
func ParseModinfo(sec []byte) Modinfo {
	var mi Modinfo
	for _, kv := range bytes.Split(sec, []byte{0}) {
		k, v, ok := strings.Cut(string(kv), "=")
		if !ok {
			continue
		}
		switch k {
		case "name":
			mi.Name = ModName(v)
		case "vermagic":
			mi.Vermagic = v
		case "depends":
			for _, d := range strings.Split(v, ",") {
				if d = strings.TrimSpace(d); d != "" {
					mi.Depends = append(mi.Depends, ModName(d))
				}
			}
		}
	}
	return mi
}

// ReadModinfo returns the .modinfo of a module file (an ELF relocatable object).
func ReadModinfo(r io.ReaderAt) (Modinfo, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return Modinfo{}, err
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return Modinfo{}, fmt.Errorf("no .modinfo section")
	}
	if sec.Type == elf.SHT_NOBITS || sec.Size > 1<<20 {
		return Modinfo{}, fmt.Errorf(".modinfo section: type %v, %d bytes", sec.Type, sec.Size)
	}
	data, err := sec.Data()
	if err != nil {
		return Modinfo{}, fmt.Errorf(".modinfo section: %v", err)
	}
	return ParseModinfo(data), nil
}

// LoadOrder returns the modules named in want and all they depend on, each after the modules
// it depends on (a depth-first walk over Depends), each once. lookup returns a module by name;
// it is asked once per module. A dependency cycle is an error: the kernel could not load such
// modules either.
func LoadOrder(want []string, lookup func(name string) (Module, error)) ([]Module, error) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var order []Module
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		name = ModName(name)
		chain = append(chain, name)
		switch state[name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("module dependency cycle: %s", strings.Join(chain, " → "))
		}
		state[name] = visiting
		m, err := lookup(name)
		if err != nil {
			return fmt.Errorf("%s: %w", strings.Join(chain, " → "), err)
		}
		for _, d := range m.Depends {
			if err := visit(d, chain); err != nil {
				return err
			}
		}
		state[name] = done
		order = append(order, m)
		return nil
	}
	for _, w := range want {
		if err := visit(w, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
