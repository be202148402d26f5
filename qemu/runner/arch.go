// The guest's architecture: -arch and -machine, and what differs on arm64 `virt`.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"strings"

	"gmpos/boot"
)

// Guest architectures (GOARCH values).
const (
	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"
)

// The arm64 `virt` contract (docs/contract.md, "arm64 virt").
const (
	// QEMUBinaryArm64 is the emulator for arm64 guests (Debian's qemu-system-arm package).
	QEMUBinaryArm64 = "qemu-system-aarch64"
	// InstallHintArm64 is printed when it is missing.
	InstallHintArm64 = "sudo apt-get update && sudo apt-get install -y qemu-system-arm"
	// EntrySymbolArm64 is the kernel's arm64 entry: the Image's code0 branches there.
	EntrySymbolArm64 = "gmpos/kernel/arch/arm64.entry"
	// LinkFlagsArm64 put the first PT_LOAD one page above the Image's load address, 0x4020_0000,
	// behind the header page (package gmpos/boot, MakeArm64).
	LinkFlagsArm64 = boot.Arm64LinkFlags
	// CPUArm64 is the vCPU model: a Cortex-A72 (ARMv8.0-A, the Raspberry Pi 4's core), so that
	// what runs on `virt` runs on the boards; QEMU's `max` would offer features they lack.
	CPUArm64 = "cortex-a72"
	// BoardRPi is BuildSpec.Board for the Raspberry Pi machines: the kernel built with
	// -tags rpi (gmpos/kernel/board/rpi), linked for RAM at 0 (boot.Arm64RPi).
	BoardRPi = "rpi"
	// raspiCPUs: QEMU's raspi3b and raspi4b have exactly the SoC's four cores.
	raspiCPUs = 4
	// virtGICv2MaxCPUs: GICv2 addresses at most 8 cores (its GICD_ITARGETSR has 8 bits a
	// line); QEMU's virt refuses more without gic-version=3.
	virtGICv2MaxCPUs = 8
)

// arch returns m's architecture: Arch, amd64 when unset.
func (m Machine) arch() string {
	if m.Arch == "" {
		return ArchAMD64
	}
	return m.Arch
}

// IsArm64 reports whether m is an arm64 machine.
func (m Machine) IsArm64() bool { return m.arch() == ArchARM64 }

// IsRPi reports whether m is one of QEMU's Raspberry Pi machines (raspi3b, raspi4b).
func (m Machine) IsRPi() bool { return m.Machine == "raspi3b" || m.Machine == "raspi4b" }

// Board is the kernel build m needs (BuildSpec.Board): BoardRPi for the Pis, "" otherwise.
func (m Machine) Board() string {
	if m.IsRPi() {
		return BoardRPi
	}
	return ""
}

// Select sets m.Arch, m.Machine and m.GIC from the -arch and -machine flags, either of which may
// be empty: a machine implies its architecture (virt: arm64; q35, pc: amd64), an architecture
// its default machine (amd64: q35, arm64: virt), and neither means amd64 on q35. machine may
// carry QEMU's option gic-version=2|3 (virt only): "virt,gic-version=3".
func (m *Machine) Select(arch, machine string) error {
	switch arch {
	case "", ArchAMD64, ArchARM64:
	default:
		return fmt.Errorf("-arch %q: want amd64 or arm64", arch)
	}
	name, opts, _ := strings.Cut(machine, ",")
	gic, el2 := 0, false
	if opts != "" {
		if name != "virt" {
			return fmt.Errorf("-machine %q: only virt takes options (gic-version=2|3, virtualization=on)", machine)
		}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "gic-version=2":
				gic = 2
			case "gic-version=3":
				gic = 3
			case "virtualization=on":
				el2 = true
			default:
				return fmt.Errorf("-machine %q: virt's options are gic-version=2|3 and virtualization=on", machine)
			}
		}
	}
	implied := ""
	switch name {
	case "q35", "pc":
		implied = ArchAMD64
	case "virt", "raspi3b", "raspi4b":
		implied = ArchARM64
	case "":
	default:
		return fmt.Errorf("-machine %q: want q35 or pc (amd64), or virt, raspi3b or raspi4b (arm64)", machine)
	}
	switch {
	case arch != "" && implied != "" && arch != implied:
		return fmt.Errorf("-machine %s is an %s machine, but -arch %s was given", name, implied, arch)
	case arch == "" && implied == "":
		arch, name = ArchAMD64, "q35"
	case arch == "":
		arch = implied
	case name == "" && arch == ArchAMD64:
		name = "q35"
	case name == "":
		name = "virt"
	}
	m.Arch, m.Machine, m.GIC, m.EL2 = arch, name, gic, el2
	return nil
}

// validateArm64 checks what an arm64 machine can do today: `virt` under TCG, without a
// firmware choice (QEMU boots the Image itself).
func (m Machine) validateArm64() error {
	if m.IsRPi() {
		return m.validateRPi()
	}
	if m.Machine != "virt" {
		return fmt.Errorf("-machine %q: the arm64 machines are virt, raspi3b and raspi4b", m.Machine)
	}
	switch m.GIC {
	case 0, 2, 3:
	default:
		return fmt.Errorf("GIC version %d: want 2 or 3", m.GIC)
	}
	if m.Firmware != "" {
		return fmt.Errorf("-firmware %s: arm64 virt has no firmware choice (QEMU loads the Image and enters it)", m.Firmware)
	}
	if m.Accel != "tcg" {
		return fmt.Errorf("-accel %q: arm64 guests run under TCG (KVM needs an arm64 host)", m.Accel)
	}
	if m.SMP < 1 || m.SMP > 255 {
		return fmt.Errorf("-smp %d: want 1..255", m.SMP)
	}
	if m.SMP > virtGICv2MaxCPUs && m.GIC != 3 {
		return fmt.Errorf("-smp %d on virt needs a GICv3 (-machine virt,gic-version=3): a GICv2 serves at most %d cores", m.SMP, virtGICv2MaxCPUs)
	}
	if _, err := ParseMem(m.Mem); err != nil {
		return err
	}
	return nil
}

// virtArgs returns QEMU's arguments for booting the arm64 Image img on `virt`
// (docs/contract.md, "arm64 virt"): its one PL011 UART on the Unix socket sock, semihosting
// for the exit status. The modules container follows as -initrd (Run).
func virtArgs(m Machine, img, cmdline, sock string) []string {
	machine := "virt"
	if m.EL2 {
		machine += ",virtualization=on"
	}
	if m.GIC != 0 {
		machine += fmt.Sprintf(",gic-version=%d", m.GIC)
	}
	accel := "tcg"
	if m.Plugin != "" && m.SMP > 1 {
		accel = "tcg,thread=single" // as on x86 (QEMUArgs): the plugin's counters are not atomic
	}
	args := []string{"-M", machine, "-cpu", CPUArm64, "-accel", accel,
		"-m", m.Mem, "-smp", fmt.Sprint(m.SMP),
		// An Image: QEMU's loader puts it at RAM + text_offset and passes the device tree in
		// x0, -append as its /chosen/bootargs (no image path in front, unlike Multiboot).
		"-kernel", img, "-append", cmdline,
		// The kernel ends QEMU with SYS_EXIT (HLT #0xF000 at EL1) and the program's status;
		// target=native: the calls are QEMU's own, not forwarded to a gdb.
		"-semihosting-config", "enable=on,target=native",
		"-display", "none", "-monitor", "none", "-no-reboot",
		// virt has one PL011 (0x0900_0000), the first -serial: every channel shares it.
		"-serial", "unix:" + sock,
	}
	if m.Plugin != "" {
		// qemu/tbprof's counter is a TCG plugin, not an x86 one: it counts arm64 blocks alike.
		args = append(args, "-plugin", m.Plugin)
	}
	if m.GDB {
		args = append(args, "-s", "-S")
	}
	return args
}

// validateRPi checks a Raspberry Pi machine: four cores (the SoC's; QEMU refuses others), no
// GIC or EL2 option (the board fixes both), no firmware choice, TCG.
func (m Machine) validateRPi() error {
	switch {
	case m.GIC != 0 || m.EL2:
		return fmt.Errorf("-machine %s takes no options", m.Machine)
	case m.Firmware != "":
		return fmt.Errorf("-firmware %s: QEMU's %s loads the Image itself", m.Firmware, m.Machine)
	case m.Accel != "tcg":
		return fmt.Errorf("-accel %q: arm64 guests run under TCG (KVM needs an arm64 host)", m.Accel)
	case m.SMP != raspiCPUs:
		return fmt.Errorf("-smp %d: QEMU's %s has exactly %d cores", m.SMP, m.Machine, raspiCPUs)
	}
	return nil
}

// raspiArgs returns QEMU's arguments for booting kernel8.img (the Image with its modules
// appended, boot.Arm64Image.AppendModules) on raspi3b or raspi4b (docs/contract.md, "Raspberry
// Pi"): QEMU's loader puts it at text_offset (0x20_0000, RAM starts at 0) and starts the other
// cores in its spin-table stub, as the Pi's firmware does; the PL011 is the first -serial and
// carries every channel as records; semihosting gives the exit status. No -m (the machine's RAM
// is fixed: 1 GiB, 2 GiB), no -initrd and no -append (the modules and the command line are in
// the image), no device tree (the board asks the firmware's mailbox for its memory).
func raspiArgs(m Machine, img, sock string) []string {
	accel := "tcg"
	if m.Plugin != "" {
		accel = "tcg,thread=single"
	}
	args := []string{"-M", m.Machine, "-accel", accel, "-kernel", img,
		"-semihosting-config", "enable=on,target=native",
		"-display", "none", "-monitor", "none", "-no-reboot",
		"-serial", "unix:" + sock,
	}
	if m.Machine == "raspi4b" {
		// raspi4b needs QEMU >= 9 (QEMURaspi4b), often Debian's backports build unpacked beside
		// the system's 7.2: without an audio backend named, it probes the PulseAudio module in
		// the system's module directory, which belongs to the other build, and aborts ("Only
		// modules from the same build can be loaded"). QEMU 7.2's -audio wants a model too.
		args = append(args, "-audio", "none")
	}
	if m.Plugin != "" {
		args = append(args, "-plugin", m.Plugin)
	}
	if m.GDB {
		args = append(args, "-s", "-S")
	}
	return args
}

// checkArm64Config refuses what an arm64 machine cannot do, each with the reason: virtio PCI
// devices (NIC, shares) need message-signalled interrupts, which the kernel has on virt (the
// GICv2m frame with GICv2, the ITS with GICv3: kernel/board/virt msi.go, its.go) but not on the
// Raspberry Pis (no PCI driven).
func checkArm64Config(cfg *Config) error {
	why := NoPCIDevicesWhy(cfg.Machine)
	if why == "" {
		return nil
	}
	n := cfg.Net
	switch {
	case n.Mode == NetUser:
		return fmt.Errorf("-net user: no NIC on %s (%s); use -net none", cfg.Machine.Machine, why)
	case len(n.HostFwd) > 0, n.Inject != "", n.Pcap != "":
		return fmt.Errorf("-hostfwd, -netinject and -pcap need a NIC, which %s does not have (%s)", cfg.Machine.Machine, why)
	case len(cfg.Shares) > 0:
		return fmt.Errorf("-share: no virtio-9p on %s (%s)", cfg.Machine.Machine, why)
	}
	return nil
}

// NoPCIDevicesWhy says why machine m cannot have the runner's virtio PCI devices (NIC, shares,
// virtio console), "" if it can: amd64 and arm64 virt.
func NoPCIDevicesWhy(m Machine) string {
	switch {
	case !m.IsArm64():
		return ""
	case m.IsRPi():
		return "the Raspberry Pi board drives no PCI"
	}
	return ""
}
