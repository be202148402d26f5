// File-level wrapper around Make, shared by mkimage and the QEMU runner.
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"fmt"
	"os"
)

// MakeFile reads the ELF at in and writes the bootable image to out
// (mode 0755; out may equal in).
func MakeFile(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	img, err := Make(data)
	if err != nil {
		return fmt.Errorf("%s: %v", in, err)
	}
	return os.WriteFile(out, img.Data, 0o755)
}
