// Package tests boots guest programs under QEMU through the runner and
// checks what they print and how they exit: the end-to-end tier of the
// gmpos tests (style-anchors "Tests come in three tiers", tier c).
//
// # Layout
//
//   - testdata/<name>/main.go: ordinary Go programs, one behaviour each
//     (goroutines, channels, GC, faults, ...). They are not modified for
//     gmpos and also run on Linux.
//   - testdata/sysfuzz: a system-call fuzzer, gmpos only (TestGuestSysfuzz).
//   - testdata/vdso: the vDSO seen from a program — its ELF, its read-only
//     pages, clocks against the system call, system-call counts from
//     gmpos_info — gmpos only (TestGuestVDSO; also booted with vdso=0).
//   - bench: the benchmark program, printing `BENCH name value unit`;
//     benchrun is the command `make bench` runs, which boots it under
//     gmpos and as /init of a Debian Linux guest in the same QEMU
//     (linuxpeer builds that guest) and compares the two.
//   - Programs from $(go env GOROOT)/test/, run unmodified.
//
// # Running
//
// All QEMU tests are named TestGuest* (select or exclude them with -run /
// -skip). Each boot has its own timeout; they run one after another
// because QEMU/TCG needs a host core per vCPU.
//
//	go test ./tests/                       # under QEMU (the default)
//	GMPOS_GUEST=native go test ./tests/    # same programs and assertions on the host
//
// Native mode checks the test programs and assertions themselves against
// Linux (the peer); it is not a substitute for the QEMU run.
package tests
