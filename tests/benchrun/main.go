// Command benchrun boots the bench program under gmpos and as a Linux guest and prints BENCH lines.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gmpos/qemu/runner"
	"gmpos/tests/linuxpeer"
)

func main() {
	smpFlag := flag.String("smp", "1,2", "vCPU counts, comma- or space-separated")
	accel := flag.String("accel", "tcg", "QEMU accelerator: tcg or kvm")
	firmware := flag.String("firmware", "qboot", "both guests' firmware: qboot or seabios")
	mem := flag.String("m", "512M", "guest memory, both guests")
	peerFlag := flag.String("peer", "linux", "peers of gmpos: linux (Debian's kernel in QEMU), host (natively on this machine), or both: linux,host")
	appendLine := flag.String("linux-append", linuxpeer.DefaultAppend, "the Linux guest's kernel command line (before \"--\" and the program's arguments)")
	timeout := flag.Duration("timeout", 5*time.Minute, "per-boot timeout")
	conns := flag.Int("conns", 16, "HTTP keep-alive connections")
	httpTime := flag.Duration("http-time", 10*time.Second, "how long the HTTP load runs")
	bulkMiB := flag.Int("bulk-mib", 64, "MiB of each bulk TCP transfer")
	micro := flag.Bool("micro", true, "run the micro-benchmarks")
	serve := flag.Bool("net", true, "run the network benchmarks")
	scale := flag.Float64("scale", 1, "multiply the micro-benchmarks' iteration counts (quick checks: 0.1)")
	consoleMB := flag.Int("console-mb", 50, "MB the console benchmark writes to stdout, gmpos and host; 0: none")
	linuxConsoleMB := flag.Int("linux-console-mb", 2, "... and the Linux peer, whose console is a 16550 UART")
	runs := flag.Int("runs", 1, "boots of each guest per vCPU count, alternating gmpos and Linux; the figures are their medians")
	verbose := flag.Bool("v", false, "echo the guests' output to stderr")
	flag.Var(&gmposKOpts, "kopt", "kernel option for the gmpos boots, repeatable (vdso=0: clock reads are system calls)")
	flag.Parse()

	smps, err := parseSMP(*smpFlag)
	if err != nil {
		fatal(err)
	}
	if *runs < 1 {
		fatal(fmt.Errorf("-runs %d: want at least 1", *runs))
	}
	peers := strings.Split(*peerFlag, ",")
	for _, p := range peers {
		if p != "linux" && p != "host" {
			fatal(fmt.Errorf("-peer %q: want linux, host or linux,host", *peerFlag))
		}
	}
	root, err := runner.FindGmposRoot()
	if err != nil {
		fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	pkg := filepath.Join(root, "tests", "bench")
	work := filepath.Join(root, "build", "linuxpeer")
	if err := os.MkdirAll(work, 0o755); err != nil {
		fatal(err)
	}
	prog := filepath.Join(work, "init")
	if err := buildProgram(pkg, prog); err != nil {
		fatal(err)
	}
	if *consoleMB < 0 || *linuxConsoleMB < 0 {
		fatal(fmt.Errorf("-console-mb, -linux-console-mb: want 0 or more"))
	}
	// The file benchmark's shared directory: gmpos mounts it with -share at /bench-share; natively
	// the program uses it directly; the Linux peer has no 9P modules and measures /tmp only.
	shareHost, err := os.MkdirTemp("", "gmpos-bench-share-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(shareHost)
	gmposArgs := []string{fmt.Sprintf("-console-mb=%d", *consoleMB), "-share-dir=" + benchShareGuest}
	hostArgs := []string{fmt.Sprintf("-console-mb=%d", *consoleMB), "-share-dir=" + shareHost}
	benchShareHost = shareHost
	linuxArgs := []string{fmt.Sprintf("-console-mb=%d", *linuxConsoleMB)}
	cfg := bootConfig{timeout: *timeout, micro: *micro, serve: *serve, scale: *scale,
		net: netConfig{conns: *conns, httpTime: *httpTime, bulk: int64(*bulkMiB) << 20}}
	if *verbose {
		cfg.verbose = os.Stderr
	}
	medians := ""
	if *runs > 1 {
		medians = fmt.Sprintf("; figures are medians of %d boots", *runs)
	}
	fmt.Printf("# gmpos vs peers %s: QEMU %s, q35, -cpu max, %s, vCPUs %v; the same program (tests/bench) in every guest%s\n",
		*peerFlag, *accel, *mem, smps, medians)
	if len(gmposKOpts) > 0 {
		fmt.Printf("# gmpos kernel options: %s\n", gmposKOpts.String())
	}

	var lp *linuxpeer.Peer
	if slices.Contains(peers, "linux") {
		b, err := os.ReadFile(prog)
		if err != nil {
			fatal(err)
		}
		if lp, err = linuxpeer.Prepare(work, b, os.Stderr); err != nil {
			fatal(fmt.Errorf("the Linux peer: %v", err))
		}
		k := lp.Kernel
		how := "cached"
		if k.Fetched {
			how = "downloaded"
		}
		fmt.Printf("# linux: Debian %s %s (the newest apt offers; %s in %s); /init loads %s; cmdline %q\n",
			k.Package, k.Version, how, rel(root, k.Dir), lp.ModuleNames(), *appendLine)
	}

	failed := false
	fail := func(what string, err error) {
		failed = true
		fmt.Printf("# %s FAILED: %s\n", what, strings.ReplaceAll(strings.TrimRight(err.Error(), "\n"), "\n", "\n# "))
	}
	info := func(what string, b boot) {
		for _, s := range b.info {
			fmt.Printf("# %s: %s\n", what, s)
		}
	}
	boot1 := func(what string, l launch, ports []int, args ...string) boot {
		if ctx.Err() != nil {
			return boot{err: ctx.Err()}
		}
		// A boot whose clock was off measured nothing: boot again, four times at most (the
		// probe at the start stops most such boots within seconds).
		for attempt := 1; ; attempt++ {
			fmt.Fprintf(os.Stderr, "benchrun: %s ...\n", what)
			b := runBoot(ctx, what, l, args, fmt.Sprintf("127.0.0.1:%d", ports[0]), fmt.Sprintf("127.0.0.1:%d", ports[1]), cfg)
			if b.clockErr == nil || attempt == 5 || ctx.Err() != nil {
				return b
			}
			fmt.Printf("# %s: %v; booting again\n", what, b.clockErr)
		}
	}

	var host boot
	if slices.Contains(peers, "host") {
		ports, err := freePorts(2)
		if err != nil {
			fatal(err)
		}
		host = boot1("host (native)", hostLaunch(prog, ports), ports, hostArgs...)
		delete(host.figs, "kernel_boot_to_main") // the host's uptime
		info("host", host)
		if host.err != nil {
			fail("host run", host.err)
		}
		for _, n := range names(host.figs) {
			fmt.Printf("BENCH host.%s %s %s\n", n, fmtValue(host.figs[n].value), host.figs[n].unit)
		}
	}

	var cols []column
	for _, smp := range smps {
		m := runner.Machine{Machine: "q35", Firmware: *firmware, Accel: *accel, Mem: *mem, SMP: smp}
		if err := m.Validate(); err != nil {
			fatal(err)
		}
		ports, err := freePorts(2)
		if err != nil {
			fatal(err)
		}
		tag := fmt.Sprintf("smp%d", smp)
		// Alternate the guests, so that a change in the machine's load hits both.
		var gms, lis []boot
		for r := 1; r <= *runs; r++ {
			what := tag
			if *runs > 1 {
				what = fmt.Sprintf("%s #%d", tag, r)
			}
			gm := boot1("gmpos "+what, gmposLaunch(pkg, m, ports), ports, gmposArgs...)
			info("gmpos "+what, gm)
			if gm.err != nil {
				fail("gmpos "+what, gm.err)
			}
			gms = append(gms, gm)
			if lp != nil {
				li := boot1("linux "+what, linuxLaunch(lp, m, *appendLine, ports), ports, linuxArgs...)
				info("linux "+what, li)
				if li.err != nil {
					fail("linux "+what, li.err)
				}
				lis = append(lis, li)
			}
		}
		gm, li := medianFigures(gms), medianFigures(lis)
		if lp != nil {
			benchLines(os.Stdout, "."+tag, gm, "linux", li, "ratio")
		} else {
			benchLines(os.Stdout, "."+tag, gm, "host", nil, "ratio")
		}
		if host.figs != nil {
			hostRatios(os.Stdout, "."+tag, gm, host.figs)
		}
		title := "1 vCPU"
		if smp > 1 {
			title = fmt.Sprintf("%d vCPUs", smp)
		}
		cols = append(cols, column{title, gm, li})
	}
	if lp != nil {
		fmt.Println("#")
		fmt.Println("# gmpos/linux below 1 is gmpos faster for times (ms, ns, us), above 1 for rates (req/s, MB/s).")
		fmt.Println("# Compare ratios, not absolute figures, across runs: TCG on a shared machine.")
		summary(os.Stdout, cols)
	}
	if failed || ctx.Err() != nil {
		os.Exit(1)
	}
}

// hostRatios writes gmpos/host ratios (hostratio.NAME.smpN) of the benchmarks both have.
func hostRatios(w io.Writer, suffix string, gm, host figures) {
	for _, n := range names(gm, host) {
		g, gok := gm[n]
		h, hok := host[n]
		if r, ok := ratio(g, h); gok && hok && ok {
			fmt.Fprintf(w, "BENCH hostratio.%s%s %s gmpos/host\n", n, suffix, fmtRatio(r))
		}
	}
}

// parseSMP reads a list of vCPU counts such as "1,2" or "1 2".
func parseSMP(s string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 255 {
			return nil, fmt.Errorf("-smp %q: want vCPU counts 1..255, e.g. 1,2", s)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-smp %q: no vCPU count", s)
	}
	return out, nil
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}
