// Does QEMU's arm64 loader accept what MakeArm64 produces, and enter it through code0?
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQEMUAcceptsArm64Image boots the Image of an ordinary arm64 Go program on `virt` and
// checks from QEMU's instruction log that the loader put the header at 0x40200000 (it reads
// text_offset only with the magic and a non-zero image_size: hw/arm/boot.c,
// load_aarch64_image), ran code0 there, and reached e_entry. The program itself never gets
// far (the runtime wants a stack and system calls), so QEMU is stopped once the log shows the
// entry.
func TestQEMUAcceptsArm64Image(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-aarch64")
	if err != nil {
		t.Skip("qemu-system-aarch64 not installed (apt-get install -y qemu-system-arm); `make test` installs it")
	}
	img, err := MakeArm64(tinyArm64(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, log := filepath.Join(dir, "tiny.img"), filepath.Join(dir, "in_asm.log")
	if err := os.WriteFile(path, img.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(qemu, "-M", "virt", "-cpu", "cortex-a72", "-accel", "tcg", "-m", "256M",
		"-kernel", path, "-display", "none", "-monitor", "none", "-serial", "none",
		"-no-reboot", "-d", "in_asm", "-D", log)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	entry, _ := img.Header.Entry()
	want := []string{fmt.Sprintf("\n0x%08x:  %08x  b ", Arm64LoadAddr, img.Header.Code0), fmt.Sprintf("\n0x%08x:", entry)}
	var trace []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		trace, _ = os.ReadFile(log)
		if strings.Contains(string(trace), want[0]) && strings.Contains(string(trace), want[1]) {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("QEMU exited (%v) before the log showed the entry: %s\nlog:\n%.2000s", err, out.String(), trace)
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("QEMU never executed %q and the entry point %#x; log:\n%.2000s", want[0], entry, trace)
		}
	}
	cmd.Process.Kill()
	<-exited
}
