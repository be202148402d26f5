// Command benchrun is what `make bench` runs. For every program in
// tests/bench/ it boots the program under QEMU with the gmpos kernel and
// runs the same program natively on the host, then prints
//
//	BENCH gmpos.NAME VALUE UNIT
//	BENCH host.NAME VALUE UNIT
//	BENCH ratio.NAME R gmpos/host
//
// The peer is the host's Linux running the program as a normal process:
// a Linux guest inside QEMU (the fairer peer) is not available offline.
// The boot program's figures come from host-side timestamps: boot_to_main
// is QEMU start → first byte of guest stdout (for the host: exec → first
// byte of stdout); gmpos alone also reports QEMU start → kernel "entry"
// record and kernel entry → first byte. Under TCG every guest figure also
// carries the emulation slowdown. Figures vary ±20% between runs on
// these shared VMs (README, "Benchmarks"); compare ratios.
//
// Exit status 1 if any gmpos run failed (the host figures are still printed).
package main
