// Prepare: the kernel and the initramfs, ready to boot.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Peer is a bootable Linux guest.
type Peer struct {
	Kernel    *Kernel
	Modules   []Module
	Initramfs string // path of the cpio archive
}

// Prepare fetches the kernel into dir/kernel (see Fetch) and writes dir/initramfs.cpio with
// initProg as /init and the NIC's modules (NetModules and their dependencies).
func Prepare(dir string, initProg []byte, log io.Writer) (*Peer, error) {
	k, err := Fetch(filepath.Join(dir, "kernel"), log)
	if err != nil {
		return nil, err
	}
	mods, err := k.Modules(NetModules)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", k.Package, err)
	}
	var buf bytes.Buffer
	if err := WriteInitramfs(&buf, initProg, k.ModDir, mods); err != nil {
		return nil, err
	}
	p := &Peer{Kernel: k, Modules: mods, Initramfs: filepath.Join(dir, "initramfs.cpio")}
	if err := os.WriteFile(p.Initramfs, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

// ModuleNames lists the modules in load order, for messages.
func (p *Peer) ModuleNames() string {
	var s []string
	for _, m := range p.Modules {
		s = append(s, m.Name)
	}
	return strings.Join(s, " ")
}
