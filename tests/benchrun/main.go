// Command benchrun runs the benchmark guests under QEMU and natively (the peer), printing BENCH lines.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gmpos/qemu/runner"
)

var benchLine = regexp.MustCompile(`^BENCH (\S+) (\S+) (\S+)$`)

type figure struct {
	value float64
	unit  string
}

func main() {
	accel := flag.String("accel", "tcg", "QEMU accelerator: tcg or kvm")
	smp := flag.Int("smp", 1, "guest CPUs")
	timeout := flag.Duration("timeout", 3*time.Minute, "per-guest timeout")
	only := flag.String("run", "", "only benchmarks whose name contains this")
	flag.Parse()

	root, err := runner.FindGmposRoot()
	if err != nil {
		fatal(err)
	}
	benchDir := filepath.Join(root, "tests", "bench")
	ents, err := os.ReadDir(benchDir)
	if err != nil {
		fatal(err)
	}
	fmt.Printf("# gmpos: QEMU accel=%s smp=%d; peer: host Linux (native process; no Linux-in-QEMU offline)\n", *accel, *smp)
	failed := false
	for _, e := range ents {
		if !e.IsDir() || !strings.Contains(e.Name(), *only) {
			continue
		}
		dir := filepath.Join(benchDir, e.Name())
		host, err := runHost(root, dir, e.Name(), *timeout)
		if err != nil {
			fmt.Printf("# host run of %s failed: %v\n", e.Name(), err)
			failed = true
		}
		guest, err := runGuest(dir, e.Name(), *accel, *smp, *timeout)
		if err != nil {
			fmt.Printf("# gmpos run of %s failed: %v\n", e.Name(), err)
			failed = true
		}
		for _, name := range names(guest, host) {
			g, gok := guest[name]
			h, hok := host[name]
			if gok {
				fmt.Printf("BENCH gmpos.%s %s %s\n", name, num(g.value), g.unit)
			}
			if hok {
				fmt.Printf("BENCH host.%s %s %s\n", name, num(h.value), h.unit)
			}
			if gok && hok && h.value > 0 && g.unit == h.unit {
				fmt.Printf("BENCH ratio.%s %.2f gmpos/host\n", name, g.value/h.value)
			}
		}
	}
	if failed {
		os.Exit(1)
	}
}

// runGuest boots dir under QEMU and collects its BENCH lines; for the boot
// program, the runner's timestamps.
func runGuest(dir, name, accel string, smp int, timeout time.Duration) (map[string]figure, error) {
	var stdout, stderr, log bytes.Buffer
	cfg := runner.DefaultConfig()
	cfg.Stdout, cfg.Stderr, cfg.Log = &stdout, &stderr, &log
	cfg.Accel, cfg.SMP, cfg.Timeout = accel, smp, timeout
	res, err := runner.Run(context.Background(), []string{dir}, cfg)
	if err != nil {
		return nil, firstLines(err.Error(), 8)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("exit %d: %s\n%s%s", res.ExitCode, res.Why, firstLines(stderr.String(), 8), log.String())
	}
	figs := parse(stdout.String())
	if name == "boot" {
		if res.FirstOutput.IsZero() {
			return figs, fmt.Errorf("no output from the boot guest")
		}
		figs["boot_to_main"] = figure{ms(res.FirstOutput.Sub(res.QEMUStart)), "ms"}
		if !res.Entry.IsZero() {
			figs["boot_to_main_from_kernel_entry"] = figure{ms(res.FirstOutput.Sub(res.Entry)), "ms"}
			figs["qemu_start_to_kernel_entry"] = figure{ms(res.Entry.Sub(res.QEMUStart)), "ms"}
		}
	}
	return figs, nil
}

// runHost builds dir natively and runs it, timing exec → first stdout byte.
func runHost(root, dir, name string, timeout time.Duration) (map[string]figure, error) {
	bin := filepath.Join(os.TempDir(), "gmpos-bench-"+name)
	defer os.Remove(bin)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	first := make([]byte, 1)
	var firstAt time.Time
	if n, _ := pipe.Read(first); n > 0 {
		firstAt = time.Now()
		out.Write(first[:n])
	}
	io.Copy(&out, pipe)
	if err := cmd.Wait(); err != nil {
		return nil, err
	}
	figs := parse(out.String())
	if name == "boot" && !firstAt.IsZero() {
		figs["boot_to_main"] = figure{ms(firstAt.Sub(start)), "ms"}
	}
	return figs, nil
}

func parse(s string) map[string]figure {
	figs := map[string]figure{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if m := benchLine.FindStringSubmatch(sc.Text()); m != nil {
			if v, err := strconv.ParseFloat(m[2], 64); err == nil {
				figs[m[1]] = figure{v, m[3]}
			}
		}
	}
	return figs
}

// names lists the figures of either run, guest's first, in a stable order.
func names(a, b map[string]figure) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]figure{a, b} {
		var ks []string
		for k := range m {
			if !seen[k] {
				ks = append(ks, k)
				seen[k] = true
			}
		}
		sort.Strings(ks)
		out = append(out, ks...)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func firstLines(s string, n int) error {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}
