// The peer's initramfs and QEMU command line.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gmpos/qemu/runner"
)

// ModulesDir is where the initramfs keeps the modules: ModulesDir/NN-NAME.ko, NN counting from 01
// in load order, so that /init loads them in the order of their sorted names.
const ModulesDir = "modules"

// WriteInitramfs writes the peer's initramfs, an uncompressed newc cpio:
//
//	/init             the program (the kernel runs it as PID 1 with the arguments after "--")
//	/dev/console      char 5:1: the kernel opens it as /init's stdin, stdout and stderr
//	/proc, /sys       empty mount points
//	/modules/NN-x.ko  the modules, in load order (read from modDir, Module.Path)
//
// Uncompressed because the kernel then has nothing to decompress at boot (the Debian kernel
// also reads gzip, but under TCG inflating a 6 MB archive costs more than copying it).
func WriteInitramfs(w io.Writer, initProg []byte, modDir string, mods []Module) error {
	if len(mods) > 99 {
		return fmt.Errorf("%d modules: the NN- prefix has two digits", len(mods))
	}
	c := NewCpioWriter(w)
	for _, d := range []string{"dev", "proc", "sys", ModulesDir} {
		if err := c.Dir(d, 0o755); err != nil {
			return err
		}
	}
	if err := c.CharDev("dev/console", 0o600, 5, 1); err != nil {
		return err
	}
	for i, m := range mods {
		data, err := os.ReadFile(filepath.Join(modDir, m.Path))
		if err != nil {
			return err
		}
		if err := c.File(fmt.Sprintf("%s/%02d-%s.ko", ModulesDir, i+1, m.Name), 0o644, data); err != nil {
			return err
		}
	}
	if err := c.File("init", 0o755, initProg); err != nil {
		return err
	}
	return c.Close()
}

// DefaultAppend is the kernel command line before the program's arguments:
//
//   - console=ttyS0: the kernel's console, and so /init's stdout, is the first serial port;
//   - quiet: the kernel prints only errors, not its boot log;
//   - panic=-1: a panic reboots at once, and QEMU's -no-reboot turns that into QEMU's exit (a
//     crashed /init ends the run instead of hanging it);
//   - tsc=reliable: with 2 vCPUs under TCG the kernel's TSC synchronization check fails (the
//     vCPUs are host threads, their TSCs are read at different host times) and Linux falls back
//     to the HPET, so that every clock read of the Go runtime becomes a system call plus an
//     emulated device access. gmpos reads the TSC as a reliable clock; so does the peer.
const DefaultAppend = "console=ttyS0 quiet panic=-1 tsc=reliable"

// KernelCmdline returns the kernel command line: base, then "--" and the program's arguments,
// which Linux passes to /init as its argv[1:]. An argument must be a non-empty word without
// quotes (the kernel's parser splits at blanks and strips double quotes).
func KernelCmdline(base string, args []string) (string, error) {
	line := strings.TrimSpace(base)
	if len(args) == 0 {
		return line, nil
	}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"") {
			return "", fmt.Errorf("argument %q: /init's arguments must be words without blanks or quotes", a)
		}
	}
	return line + " -- " + strings.Join(args, " "), nil
}

// QEMUArgs returns the arguments of qemu-system-x86_64 for the peer: the same machine as gmpos
// gets from runner.QEMUArgs (machine, firmware, accelerator, CPU model, memory, vCPUs) and the same NIC
// from runner.NetArgs, with the Debian kernel and the initramfs instead of gmpos's Multiboot
// image; the console is QEMU's stdio.
func QEMUArgs(m runner.Machine, vmlinuz, initrd, cmdline string, nw runner.Network) []string {
	args := append([]string{"-M", m.Machine}, runner.FirmwareArgs(m)...)
	if m.Accel == "kvm" {
		args = append(args, "-accel", "kvm", "-cpu", "host,-arch-capabilities")
	} else {
		args = append(args, "-accel", "tcg", "-cpu", "max")
	}
	args = append(args,
		"-m", m.Mem, "-smp", strconv.Itoa(m.SMP),
		"-kernel", vmlinuz, "-initrd", initrd, "-append", cmdline,
		"-display", "none", "-monitor", "none", "-no-reboot",
		"-serial", "stdio",
	)
	mode := runner.NetNone
	if len(nw.HostFwd) > 0 || nw.Mode == runner.NetUser {
		mode = runner.NetUser
	}
	return append(args, runner.NetArgs(nw, mode, netip.AddrPort{})...)
}
