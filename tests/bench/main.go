// Command bench is the benchmark program of `make bench` (tests/benchrun). The same static
// binary runs as a gmpos guest, as /init of a Linux guest in the same QEMU machine (the peer,
// tests/linuxpeer), and, on request, natively on the host. It prints its figures as
//
//	BENCH name value unit
//
// in this order: the kernel's own start-up time (CLOCK_BOOTTIME when main starts), the
// micro-benchmarks (micro.go), the console benchmark (console.go: its payload lines start with
// "~"), the file benchmark (files.go: /tmp, and a directory shared with the host), then it serves the network benchmarks (serve.go) and prints
//
//	READY http=ADDR bulk=ADDR
//
// when both listeners are up; the host drives the load through QEMU's -hostfwd and ends the
// run with GET /quit, after which the program prints DONE and exits (as Linux's PID 1, -linux-init:
// powers the machine off). INFO lines describe the system; CLOCK lines, two at the start 2 s
// apart and one before DONE, give CLOCK_BOOTTIME so that the host can check the guest's clock
// against its own.
// SPDX-License-Identifier: BSD-3-Clause
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

var linuxInit = flag.Bool("linux-init", false, "act as Linux's PID 1: load /modules/*.ko, configure the NIC, power off at the end")

func main() {
	start := bootTime() // first: how long the kernel took to get here
	addr := flag.String("addr", "10.0.2.15/24", "with -linux-init: the NIC's address (QEMU's user network gives every guest 10.0.2.15)")
	micro := flag.Bool("micro", true, "run the micro-benchmarks")
	serveNet := flag.Bool("serve", true, "serve the network benchmarks until GET /quit")
	httpAddr := flag.String("http", ":8080", "the HTTP server's address")
	bulkAddr := flag.String("bulk", ":8081", "the bulk TCP server's address")
	scale := flag.Float64("scale", 1, "multiply the micro-benchmarks' iteration counts (for quick checks)")
	consoleMB := flag.Int("console-mb", 50, "MB (10^6 bytes) written to stdout by the console benchmark; 0: none")
	filesMB := flag.Int("files-mb", 64, "MiB written and read back by the file benchmark, in /tmp and in -share-dir; 0: none")
	pipeMB := flag.Int("pipe-mb", 64, "MiB sent through a pipe between two goroutines by the pipe benchmark; 0: none")
	shareDir := flag.String("share-dir", "", "a directory shared with the host (gmpos: -share), for the file benchmark")
	flag.Parse()
	fmt.Printf("BENCH kernel_boot_to_main %.1f ms\n", ms(start))
	// Two CLOCK lines 2 s apart: the host compares them with its own clock and boots again at
	// once if the guest's clock runs at another rate (its figures would be wrong).
	fmt.Printf("CLOCK %.1f ms\n", ms(bootTime()))
	time.Sleep(2 * time.Second)
	fmt.Printf("CLOCK %.1f ms\n", ms(bootTime()))
	if *linuxInit {
		defer func() { // PID 1 must not return: say why and power off
			if r := recover(); r != nil {
				fmt.Printf("PANIC %v\n%s", r, debug.Stack())
				exit(2)
			}
		}()
		t0 := time.Now()
		if err := setupLinux(*addr); err != nil {
			fmt.Println("FAIL linux-init:", err)
			exit(1)
		}
		fmt.Printf("BENCH linux_init %.1f ms\n", ms(time.Since(t0)))
	}
	info()
	if *micro {
		runMicro(*scale)
	}
	if *consoleMB > 0 {
		runConsole(*consoleMB)
	}
	if *pipeMB > 0 {
		runPipe(*pipeMB)
	}
	if *filesMB > 0 {
		runFiles("tmpfs", "/tmp/bench", *filesMB)
		if *shareDir != "" {
			runFiles("share", *shareDir, *filesMB)
		}
	}
	if *serveNet {
		if err := serve(*httpAddr, *bulkAddr); err != nil {
			fmt.Println("FAIL serve:", err)
			exit(1)
		}
	}
	fmt.Printf("CLOCK %.1f ms\n", ms(bootTime()))
	fmt.Println("DONE")
	exit(0)
}

// exit ends the program; as Linux's PID 1 it powers off instead (exiting would panic the kernel).
func exit(code int) {
	if *linuxInit {
		fmt.Printf("EXIT %d\n", code)
		powerOff()
	}
	os.Exit(code)
}

func report(name string, v float64, unit string) { fmt.Printf("BENCH %s %.1f %s\n", name, v, unit) }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// bootTime is CLOCK_BOOTTIME: the time since the kernel started its clock.
func bootTime() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 7 /* CLOCK_BOOTTIME */, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// info prints the kernel's release, the Go version, the CPU count and, on Linux, the clock
// source and the mitigations that make system calls dearer.
func info() {
	var u syscall.Utsname
	syscall.Uname(&u)
	var rel []byte
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	s := fmt.Sprintf("INFO kernel=%s go=%s ncpu=%d", rel, runtime.Version(), runtime.NumCPU())
	for _, f := range []struct{ name, path string }{
		{"clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource"},
		{"meltdown", "/sys/devices/system/cpu/vulnerabilities/meltdown"},
		{"spectre_v2", "/sys/devices/system/cpu/vulnerabilities/spectre_v2"},
	} {
		if b, err := os.ReadFile(f.path); err == nil {
			s += fmt.Sprintf(" %s=%q", f.name, strings.TrimSpace(string(b)))
		}
	}
	fmt.Println(s)
}
