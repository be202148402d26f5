// The modules container: arm64's one -initrd file holding the argument module and the root file
// system (docs/contract.md, "arm64 virt"; kernel/board/virt reads it).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"encoding/binary"
	"fmt"
	"gmpos/boot"
	"io"
	"os"
	"path/filepath"
)

// On x86 QEMU's Multiboot loader takes several comma-separated -initrd files and makes each a
// module (initrdArg). On arm64 -initrd is one file, which QEMU copies into RAM and announces in
// the device tree (/chosen linux,initrd-start and linux,initrd-end; hw/arm/boot.c), so the
// runner packs the modules into one container:
//
//	offset  size      field
//	0       8         "GMPOSMOD"
//	8       4         count, u32 LE
//	12      4         0 (reserved)
//	16      16*count  per module: offset from the container's start (u64 LE), size (u64 LE)
//	...               each module at a 4 KiB-aligned offset, zeros between
//
// The container ends with the last module's last byte. 4 KiB alignment lets the kernel keep each
// module's pages (or hand them back) whole, as it does with Multiboot's page-aligned modules.

// ModulesMagic starts a modules container.
const ModulesMagic = "GMPOSMOD"

// modulesAlign is each module's alignment within the container.
const modulesAlign = 4096

// ModulesLayout returns the container header for modules of the given sizes and each module's
// offset.
func ModulesLayout(sizes []int64) (header []byte, offsets []int64) {
	header = append([]byte(ModulesMagic), 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(header[8:], uint32(len(sizes)))
	off := int64(16 + 16*len(sizes))
	for _, n := range sizes {
		off = (off + modulesAlign - 1) &^ (modulesAlign - 1)
		offsets = append(offsets, off)
		header = binary.LittleEndian.AppendUint64(header, uint64(off))
		header = binary.LittleEndian.AppendUint64(header, uint64(n))
		off += n
	}
	return header, offsets
}

// WriteModules writes the container of the files srcs, in order, to dst.
func WriteModules(dst string, srcs ...string) error {
	var sizes []int64
	for _, p := range srcs {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		sizes = append(sizes, st.Size())
	}
	header, offsets := ModulesLayout(sizes)
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := out.Write(header); err != nil {
		out.Close()
		return err
	}
	at := int64(len(header))
	for i, p := range srcs {
		if _, err := out.Write(make([]byte, offsets[i]-at)); err != nil {
			out.Close()
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			out.Close()
			return err
		}
		n, err := io.Copy(out, in)
		in.Close()
		if err == nil && n != sizes[i] {
			err = fmt.Errorf("%s changed size while the modules container was written", p)
		}
		if err != nil {
			out.Close()
			return err
		}
		at = offsets[i] + n
	}
	return out.Close()
}

// AppendModulesFile appends the container at container to the arm64 Image at img, in place,
// with the locator's flags (boot.Arm64Image.AppendModules): the Raspberry Pi's kernel8.img.
func AppendModulesFile(img, container string, flags uint32) error {
	data, err := os.ReadFile(img)
	if err != nil {
		return err
	}
	c, err := os.ReadFile(container)
	if err != nil {
		return err
	}
	h, err := boot.DecodeArm64Header(data)
	if err != nil {
		return err
	}
	im := &boot.Arm64Image{Data: data, Header: h}
	if err := im.AppendModules(c, flags); err != nil {
		return fmt.Errorf("appending the modules to %s: %v", img, err)
	}
	return os.WriteFile(img, im.Data, 0o755)
}

// appendRPiModules makes img the Pi's kernel8.img: the container of the argument module, the
// root file system and the kernel command line (Cmdline of argv0 and kopts) appended, its
// locator saying records and semihosting under QEMU (runner) or plain text and a halt on a
// board (gmpos image).
func appendRPiModules(img, work, argv0 string, kopts []string, modPath, rootPath string, underQEMU bool) error {
	cmdline, err := Cmdline(argv0, kopts, nil)
	if err != nil {
		return err
	}
	cmdPath := filepath.Join(work, "cmdline")
	if err := os.WriteFile(cmdPath, []byte(cmdline), 0o644); err != nil {
		return err
	}
	container := filepath.Join(work, "modules")
	if err := WriteModules(container, modPath, rootPath, cmdPath); err != nil {
		return fmt.Errorf("the modules container: %v", err)
	}
	var flags uint32
	if underQEMU {
		flags = boot.Arm64LocRecords | boot.Arm64LocSemihosting
	}
	return AppendModulesFile(img, container, flags)
}

// copyFile copies src to dst (mode 0644).
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
