// Command benchrun is what `make bench` runs: it compares gmpos with Linux by running one
// program, tests/bench, as a gmpos guest and as /init of Debian's stock cloud kernel in the same
// QEMU machine (TCG, q35, -cpu max, 512 MiB, the same vCPU count and the same virtio-net NIC on
// QEMU's user network), one guest at a time, for each vCPU count of -smp. Per count it prints
//
//	BENCH gmpos.NAME.smpN VALUE UNIT
//	BENCH linux.NAME.smpN VALUE UNIT
//	BENCH ratio.NAME.smpN R gmpos/linux
//
// and at the end a table of the same figures ("# " lines). The benchmarks:
//
//   - boot_to_main: QEMU start → the program's first line (host clock); kernel_boot_to_main:
//     CLOCK_BOOTTIME when main starts (the guest kernel's own clock);
//   - micro-benchmarks in the program: futex_pingpong (two LockOSThread goroutines),
//     chan_pingpong, goroutine_spawn_join, syscall_getpid, mmap_touch_munmap (16 pages mapped,
//     touched and unmapped: faults and, on several vCPUs, a TLB shootdown), syscall_preempt_median
//     and _worst (the runtime's TestPreemptionAfterSyscall timed: wake-up latency under spinning
//     threads);
//   - the console: console_write_mbps (50 MB to stdout, 64 KiB a write, through gmpos's virtio
//     console, into a pipe natively, through the peer's 16550 serial console — about 0.3 MB/s
//     under TCG, so the peer writes -linux-console-mb, 2 MB, instead) and
//     console_sleep_median, _worst (10 ms sleeps in another goroutine meanwhile);
//   - a pipe: pipe_mbps (64 MiB through os.Pipe from one goroutine to another, 1 MiB calls);
//   - files: file_tmpfs_write_mbps, _read_mbps (64 MiB in 1 MiB calls, to /tmp: gmpos's tmpfs,
//     the peer's rootfs, the host's /tmp) and file_share_write_mbps, _read_mbps (the same to a
//     host directory: gmpos through -share, virtio-9p; natively the directory itself; the peer
//     has no 9P modules and skips it);
//   - the network through QEMU's -hostfwd, driven from the host: http_req_per_s, http_p50 and
//     http_p99 (GET / from 16 keep-alive connections for 10 s), tcp_host_to_guest and
//     tcp_guest_to_host (64 MiB over one connection, timed on the host; MB = 10^6 bytes);
//   - one guest only, no ratio: gmpos's qemu_start_to_kernel_entry, Linux's linux_init (loading
//     the virtio modules and configuring the NIC, which gmpos's kernel does before main).
//
// A ratio is gmpos/linux: below 1 gmpos is faster for times (ms, ns, us), above 1 for rates
// (req/s, MB/s). -runs N boots each guest N times per vCPU count, alternating them, and reports
// medians. -peer linux,host adds the host's Linux running the same program natively (BENCH
// host.NAME and hostratio.NAME.smpN, gmpos/host), the comparison `make bench` made before the
// Linux guest existed. -kopt KEY=VALUE (repeatable) passes a kernel option to every gmpos boot:
// -kopt vdso=0 measures gmpos without its vDSO, every clock read a system call.
//
// The guests time their own benchmarks, so each guest's clock is checked against the host's
// (the program's CLOCK lines): 2 s after main, and over the whole run. A boot whose clock ran
// more than 10% off is stopped or discarded and booted again, up to 5 times; gmpos calibrates
// its TSC over 10 ms at boot, which a busy host often spoils (see checkClock).
//
// The Linux guest is built by tests/linuxpeer: the kernel package is fetched with apt into
// build/linuxpeer/kernel (once per package version; apt-get update may run first, as root or
// with passwordless sudo), and the initramfs written to build/linuxpeer/initramfs.cpio.
//
// Exit status 1 if any boot failed; the figures of the others are still printed.
package main
