// The QEMU command line and the serial ports (three on x86, the one UART on arm64: arch.go).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// QEMUBinary is the emulator the runner starts for amd64 guests (QEMUBinaryArm64: arm64).
const QEMUBinary = "qemu-system-x86_64"

// InstallHint is printed when QEMU is missing.
const InstallHint = "sudo apt-get update && sudo apt-get install -y qemu-system-x86"

// Machine describes the virtual machine.
type Machine struct {
	Arch     string // the guest's GOARCH: amd64 ("" too) or arm64; Select derives it from -machine
	Machine  string // q35 or pc (amd64), virt (arm64)
	GIC      int    // virt: the interrupt controller's version, 2 or 3; 0 is QEMU's default, 2
	EL2      bool   // virt: virtualization=on: the kernel is entered at EL2, as a Raspberry Pi's firmware enters it
	Firmware string // qboot ("": the default) or seabios: see FirmwareArgs
	Accel    string // tcg or kvm
	Mem      string // -m argument, e.g. 1G
	SMP      int
	GDB      bool   // -s -S: wait for gdb on tcp::1234
	Plugin   string // -plugin FILE: a TCG plugin, e.g. qemu/tbprof's instruction counter (TCG only)
}

// Validate checks the machine description.
func (m Machine) Validate() error {
	switch m.Arch {
	case "", ArchAMD64:
	case ArchARM64:
		return m.validateArm64()
	default:
		return fmt.Errorf("-arch %q: want amd64 or arm64", m.Arch)
	}
	if m.Machine == "virt" {
		return fmt.Errorf("-machine virt is an arm64 machine: add -arch arm64 (Machine.Select implies it)")
	}
	if m.GIC != 0 || m.EL2 {
		return fmt.Errorf("gic-version and virtualization are virt's (arm64) options")
	}
	switch m.Machine {
	case "q35", "pc":
	default:
		return fmt.Errorf("-machine %q: want q35 or pc", m.Machine)
	}
	switch m.Firmware {
	case "", "qboot", "seabios":
	default:
		return fmt.Errorf("-firmware %q: want qboot or seabios", m.Firmware)
	}
	switch m.Accel {
	case "tcg", "kvm":
	default:
		return fmt.Errorf("-accel %q: want tcg or kvm", m.Accel)
	}
	if m.Plugin != "" && m.Accel != "tcg" {
		return fmt.Errorf("-plugin needs -accel tcg: plugins instrument TCG's translation")
	}
	if m.SMP < 1 || m.SMP > 255 {
		return fmt.Errorf("-smp %d: want 1..255", m.SMP)
	}
	if _, err := ParseMem(m.Mem); err != nil {
		return err
	}
	return nil
}

// ParseMem checks a -m SIZE argument (a number with an optional K, M, G
// suffix; plain numbers are MiB as in QEMU) and returns it in bytes.
func ParseMem(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("-m: empty size")
	}
	mult := int64(1 << 20)
	num := s
	switch s[len(s)-1] {
	case 'K', 'k':
		mult, num = 1<<10, s[:len(s)-1]
	case 'M', 'm':
		mult, num = 1<<20, s[:len(s)-1]
	case 'G', 'g':
		mult, num = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("-m %q: want a size such as 512M or 1G", s)
	}
	b := n * mult
	if b < 64<<20 {
		return 0, fmt.Errorf("-m %q: at least 64M is needed (the Go runtime reserves tens of MiB at start)", s)
	}
	return b, nil
}

// QEMUArgs returns the arguments for booting img with cmdline, with COM1..3
// connected to the Unix sockets socks[0..2] (docs/contract.md). An arm64 machine has one
// UART, on socks[0] (virtArgs).
func QEMUArgs(m Machine, img, cmdline string, socks [3]string) []string {
	if m.IsRPi() {
		return raspiArgs(m, img, socks[0])
	}
	if m.IsArm64() {
		return virtArgs(m, img, cmdline, socks[0])
	}
	args := append([]string{"-M", m.Machine}, FirmwareArgs(m)...)
	if m.Accel == "kvm" {
		// Plain -cpu host aborts on nested KVM ("failed to set MSR 0x10a").
		args = append(args, "-accel", "kvm", "-cpu", "host,-arch-capabilities")
	} else if m.Plugin != "" && m.SMP > 1 {
		// One host thread runs every vCPU in turn: a plugin's inline counters are plain
		// additions, which vCPUs on threads of their own would race on (qemu-plugin.h).
		args = append(args, "-accel", "tcg,thread=single", "-cpu", "max")
	} else {
		args = append(args, "-accel", "tcg", "-cpu", "max")
	}
	args = append(args,
		"-m", m.Mem, "-smp", strconv.Itoa(m.SMP),
		"-kernel", img, "-append", cmdline,
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
		"-display", "none", "-monitor", "none", "-no-reboot",
	)
	for _, s := range socks {
		// QEMU connects to our listener as a client at start-up, before
		// the guest runs, so no byte written by the guest can be lost.
		args = append(args, "-serial", "unix:"+s)
	}
	if m.Plugin != "" {
		args = append(args, "-plugin", m.Plugin)
	}
	if m.GDB {
		args = append(args, "-s", "-S")
	}
	return args
}

// FirmwareArgs selects the machine's firmware and leaves out the VGA card, which nothing
// displays (-display none) and whose option ROM SeaBIOS would run.
//
// qboot (QEMU's qboot.rom, the microvm machine's firmware, which boots q35 and pc as well) is the
// default: it reads the kernel and the modules from fw_cfg and jumps, where SeaBIOS first
// enumerates and configures the buses and runs option ROMs. Measured on this project's 2-core
// host under TCG (docs/boot.md): QEMU start → kernel entry about 100 ms with qboot against 180
// with SeaBIOS. qboot assigns no PCI BARs and no interrupt lines; the kernel assigns the BARs
// of the functions it drives (kernel/pci_devices.go) and uses MSI-X only. SeaBIOS stays one flag
// away (-firmware seabios) for a comparison or a device that needs a firmware's set-up.
func FirmwareArgs(m Machine) []string {
	if m.Firmware == "seabios" {
		return []string{"-vga", "none"}
	}
	return []string{"-bios", "qboot.rom", "-vga", "none"}
}

// CheckQEMU returns the path of the amd64 emulator or an error that says how to
// install it.
func CheckQEMU() (string, error) { return CheckQEMUFor(ArchAMD64) }

// CheckQEMUFor is CheckQEMU for the emulator of the guest architecture arch.
func CheckQEMUFor(arch string) (string, error) {
	bin, hint := QEMUBinary, InstallHint
	if arch == ArchARM64 {
		bin, hint = QEMUBinaryArm64, InstallHintArm64
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s not found in PATH; install it with:\n\t%s", bin, hint)
	}
	return p, nil
}

// serialListeners creates n Unix sockets, COM1..COMn, in a fresh
// directory with a short path (sun_path holds at most 107 bytes) without
// commas (QEMU would read `-serial unix:PATH` as options from the first one).
// The rest of the arrays stay empty (arm64: one UART).
func serialListeners(n int) (dir string, socks [3]string, ls [3]net.Listener, err error) {
	base := os.TempDir()
	if len(base) > 60 || strings.Contains(base, ",") {
		base = "/tmp"
	}
	dir, err = os.MkdirTemp(base, "gmpos-com")
	if err != nil {
		return "", socks, ls, err
	}
	for i := range n {
		socks[i] = filepath.Join(dir, fmt.Sprintf("com%d", i+1))
		if ls[i], err = net.Listen("unix", socks[i]); err != nil {
			for _, l := range ls[:i] {
				l.Close()
			}
			os.RemoveAll(dir)
			return "", socks, ls, err
		}
	}
	return dir, socks, ls, nil
}

// initrdArg is QEMU's -initrd for Multiboot modules: the files in order, comma-separated. QEMU
// reads ",," as a comma in a name, and takes the rest of an entry after a space as the module's
// command line, so a path with a space is refused (the runner's own work paths have none).
func initrdArg(paths ...string) (string, error) {
	q := make([]string, len(paths))
	for i, p := range paths {
		if strings.Contains(p, " ") {
			return "", fmt.Errorf("module path %q contains a space, which QEMU's -initrd cannot carry", p)
		}
		q[i] = strings.ReplaceAll(p, ",", ",,")
	}
	return strings.Join(q, ","), nil
}
