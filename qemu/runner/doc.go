// Package runner builds an unmodified Go main package with the gmpos kernel
// linked in, boots it under QEMU and maps the guest's exit to a status. It
// is the library behind `go run ./qemu` and the QEMU tests in tests/.
//
// # Concepts
//
//   - Target: what PKG names — a package of the gmpos module, plain .go
//     files outside any module (e.g. $(go env GOROOT)/test/chan/sieve1.go),
//     or a main package of another module. See Resolve.
//   - Overlay: the kernel is linked in by a generated file
//     (OverlayFile, `import _ "gmpos/kernel"`) that `go build -overlay`
//     adds to the package directory; nothing on disk changes. Another
//     module gets gmpos through a temporary go.work listing both modules
//     (its own go.mod, requirements and replaces stay in force); plain
//     files are built as command-line-arguments from the gmpos module.
//   - Image: the ELF linked with the contract's flags, made bootable by
//     package gmpos/boot (amd64: a Multiboot header; arm64: a Linux arm64
//     Image).
//   - Executable (build.go, ExecCommand): the same program linked a second
//     time, without the kernel, at the exec region (ExecLinkFlags) — what the
//     kernel's execve loads for a child process (docs/processes.md); it is
//     /bin/NAME in the root file system. Both links run at once.
//   - Serial ports: COM1 = guest stdout, COM2 = guest stderr, COM3 =
//     kernel control records (docs/contract.md). Each port is a Unix
//     socket on which the runner listens before QEMU starts; QEMU
//     (`-serial unix:PATH`) connects as a client during start-up, before
//     the guest executes, so no byte is lost. A slow reader back-pressures
//     the guest's UART instead of dropping output; QEMU closes the sockets
//     when it exits and the runner drains them before mapping the exit
//     status. Sockets instead of `-serial stdio` keep QEMU's own messages
//     apart from guest output and give three separate streams.
//   - Virtio console (vconsole.go): stdout and stderr at 100+ MB/s as one
//     stream of [channel][len][bytes] records on a virtserialport (port 1
//     of a virtio-serial-pci device, throttled by QEMU rather than
//     dropping when the runner reads slowly); Demux splits it. The serial
//     ports remain the fallback and the channel of the kernel's records.
//   - Shares (share.go): each -share is a virtio-9p-pci device on QEMU's
//     "local" 9P server and a share=TAG:DIR kernel option; the kernel is
//     the 9P2000.L client.
//   - Start marker: the kernel prints StartMarker on COM1 at entry;
//     MarkerWriter drops SeaBIOS's output before it.
//   - Exit code: see ExitCode and docs/contract.md "Runner exit codes".
//   - Profile (profile.go): with Config.Profile, the kernel's "prof" records
//     (kernel option profile=HZ) become a pprof profile, symbolized from
//     both images' .gopclntab (docs/profiling.md).
//   - Network (net.go, netdeps.go): -net user gives the guest a virtio-net
//     NIC on QEMU user networking, -net none no NIC; -net auto (the
//     default) picks user when the program imports package net, directly
//     or not (ImportsNet: `go list -deps`). -hostfwd forwards host TCP
//     ports on 127.0.0.1; -netinject (tests) adds a UDP socket whose
//     datagrams reach the NIC as raw frames. A program that imports net
//     also gets NetstackImport through the overlay, whatever -net says.
//   - Architecture (arch.go): Machine.Arch, amd64 (q35, pc) or arm64 (virt,
//     optionally virt,gic-version=3); Machine.Select turns the -arch and
//     -machine flags into it, each implying the other. An arm64 guest is
//     built with GOARCH=arm64 and LinkFlagsArm64, made an Image
//     (boot.MakeArm64), and booted by qemu-system-aarch64 -M virt -cpu
//     cortex-a72 under TCG. virt has one PL011 UART, so everything the three
//     x86 ports carry shares it (uart.go): after the start marker, records
//     [channel][u16 length][bytes] — 1 stdout, 2 stderr, 3 control — which
//     UARTDemux splits, and the runner's input (stdin, signals) goes back
//     as records on channels 1 and 2. QEMU's -initrd takes one file there,
//     so the two modules travel in a container (modules.go). The guest ends
//     QEMU through semihosting's SYS_EXIT with its status, which
//     ExitCode takes as it is (Outcome.Semihosting). Not on arm64 yet, and
//     refused or skipped with a message: a NIC (-net user, -hostfwd, ...),
//     -share, the virtio console, -firmware, KVM; the host's TSC rate
//     (tsc_hz) is not passed. -plugin works (a TCG plugin is not x86's).
//   - Root file system (initramfs.go, fstree.go, cpio.go, zoneinfo.go,
//     hostfs.go): every run hands the kernel a cpio archive as the second
//     Multiboot module — /etc's account files, the time zones, the
//     program's executable at /bin/NAME, and each -fs host directory —
//     and the kernel option cwd= for the initial working directory
//     (docs/contract.md, "Root file system module").
//
// # Contexts
//
// Host-only. Run is safe to call from several goroutines (each call has
// its own work directory and sockets).
//
// # References
//
//   - docs/contract.md: link flags, serial ports, control records,
//     command line, exit codes; "arm64 virt" for the arm64 machine.
//   - QEMU 7.2 hw/arm/boot.c (the Image and -initrd on virt), hw/char/pl011.c,
//     semihosting/arm-compat-semi.c (SYS_EXIT); Arm's "Semihosting for
//     AArch32 and AArch64".
//   - QEMU 7.2 documentation, "Character device options" (-serial unix:),
//     "Network options" (-netdev user/hubport/dgram, hostfwd).
//   - docs/network.md: the network stack the runner links in.
//   - cmd/go: `go help build` (-overlay), `go help work`.
package runner
