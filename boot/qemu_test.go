// Does QEMU's Multiboot loader accept what Make produces, and jump to e_entry?
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQEMUAcceptsImage boots the image of an ordinary Go program (which of
// course crashes at once: its entry is 64-bit code entered in 32-bit
// mode) and checks from QEMU's instruction log that the loader accepted
// the file and jumped to e_entry, on both machine types the kernel
// supports.
func TestQEMUAcceptsImage(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Skip("qemu-system-x86_64 not installed (apt-get install -y qemu-system-x86); `make test` installs it")
	}
	img, err := Make(tiny(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.img")
	if err := os.WriteFile(path, img.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, machine := range []string{"q35", "pc"} {
		t.Run(machine, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			log := filepath.Join(dir, machine+".log")
			cmd := exec.CommandContext(ctx, qemu, "-M", machine, "-cpu", "max", "-accel", "tcg", "-m", "128M",
				"-kernel", path, "-display", "none", "-monitor", "none", "-serial", "none",
				"-no-reboot", "-d", "in_asm", "-D", log)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("QEMU did not stop (a triple fault with -no-reboot should end it): %s", out)
			}
			if err != nil || len(out) > 0 {
				t.Fatalf("QEMU refused the image: %v: %s", err, out)
			}
			trace, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("\n0x%08x:", img.Header.EntryAddr)
			if !strings.Contains(string(trace), want) {
				t.Fatalf("QEMU never executed the entry point %#x", img.Header.EntryAddr)
			}
		})
	}
}
