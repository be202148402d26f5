// Booting the bench program: under gmpos, as /init of the Linux peer, or natively; and one
// boot's protocol (micro-benchmarks, then the network benchmarks, then GET /quit).
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gmpos/qemu/runner"
	"gmpos/tests/linuxpeer"
)

// Guest ports of the bench program's servers, forwarded from free host ports.
const (
	guestHTTPPort = 8080
	guestBulkPort = 8081
)

// line is one line of the program's output and when it arrived.
type line struct {
	text string
	at   time.Time
}

// lineLog collects a guest's console output as timestamped lines; ready is closed when the
// program's READY line arrives. The console benchmark's payload lines (starting with '~', tens
// of MB) are counted, not kept.
type lineLog struct {
	mu      sync.Mutex
	partial []byte
	lines   []line
	payload int // payload lines dropped
	ready   chan struct{}
	clocks  chan clockMark // the first CLOCK lines, as they arrive
	echo    io.Writer      // if set (-v), every line is copied here after prefix
	prefix  string
}

func newLineLog(echo io.Writer, prefix string) *lineLog {
	return &lineLog{ready: make(chan struct{}), clocks: make(chan clockMark, 2), echo: echo, prefix: prefix}
}

func (l *lineLog) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		if l.partial[0] == '~' {
			l.payload++
		} else {
			l.add(string(bytes.TrimRight(l.partial[:i], "\r")), now)
		}
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

func (l *lineLog) add(s string, at time.Time) {
	l.lines = append(l.lines, line{s, at})
	if l.echo != nil {
		fmt.Fprintf(l.echo, "%s%s\n", l.prefix, s)
	}
	if d, ok := parseClock(programLine(s)); ok {
		select {
		case l.clocks <- clockMark{d, at}:
		default: // only the first two matter
		}
	}
	if strings.HasPrefix(programLine(s), "READY ") {
		select {
		case <-l.ready:
		default:
			close(l.ready)
		}
	}
}

// snapshot returns the lines so far, and an unfinished last line as if it were finished.
func (l *lineLog) snapshot() []line {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]line(nil), l.lines...)
	if len(l.partial) > 0 {
		out = append(out, line{string(l.partial), time.Now()})
	}
	return out
}

// programLine returns s from where the bench program's output starts: on a serial console
// a line may begin with other bytes (a firmware's escapes, the end of a kernel message).
func programLine(s string) string {
	best := -1
	for _, p := range []string{"BENCH ", "READY ", "INFO ", "CLOCK ", "DONE", "FAIL ", "PANIC ", "EXIT "} {
		if i := strings.Index(s, p); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return s[best:]
}

// tail returns the last n lines as text, for error messages.
func tail(ls []line, n int) string {
	var b strings.Builder
	for _, l := range ls[max(0, len(ls)-n):] {
		b.WriteString("\t| " + l.text + "\n")
	}
	return b.String()
}

// launch starts one boot of the bench program with args, its stdout going to out, and blocks
// until it has ended. It returns when the machine (or process) started, figures only the
// launcher knows, and an error if it failed.
type launch func(ctx context.Context, args []string, out io.Writer) (started time.Time, extra figures, err error)

// bootConfig is what every boot shares.
type bootConfig struct {
	timeout time.Duration
	net     netConfig
	micro   bool
	serve   bool
	scale   float64
	verbose io.Writer // echo the guests' output (-v), or nil
}

// boot is the result of one boot.
type boot struct {
	figs     figures
	info     []string // INFO lines and notes
	err      error
	clockErr error // the guest's clock was off (checkClock); also in err
	lines    []line
}

// runBoot boots the program once: it waits for READY, drives the network benchmarks from the
// host (hostHTTP, hostBulk: where the host reaches the program's servers), ends the run with
// GET /quit, and collects the BENCH lines. boot_to_main is measured on the host: from the
// start of QEMU (of the process, natively) to the arrival of the program's first line.
func runBoot(parent context.Context, name string, l launch, args []string, hostHTTP, hostBulk string, cfg bootConfig) boot {
	ctx, cancel := context.WithTimeout(parent, cfg.timeout)
	defer cancel()
	log := newLineLog(cfg.verbose, name+"| ")
	args = append(args, "-scale="+strconv.FormatFloat(cfg.scale, 'g', -1, 64),
		"-micro="+strconv.FormatBool(cfg.micro), "-serve="+strconv.FormatBool(cfg.serve))
	type ended struct {
		started time.Time
		extra   figures
		err     error
	}
	done := make(chan ended, 1)
	go func() {
		s, x, err := l(ctx, args, log)
		done <- ended{s, x, err}
	}()
	// The clock probe: the program's first two CLOCK lines are 2 s apart on its clock. If they
	// are not on the host's, the boot is stopped at once (the caller boots again). The verdict
	// is made again below from the same lines, so that it does not depend on this goroutine.
	go func() {
		var a clockMark
		for i := 0; i < 2; i++ {
			select {
			case m := <-log.clocks:
				if i == 0 {
					a = m
				} else if checkClock(a, m, 0) != nil {
					cancel()
				}
			case <-ctx.Done():
				return
			}
		}
	}()

	var b boot
	var netFigs figures
	var e ended
	waitDone := true
	if cfg.serve {
		select {
		case <-log.ready:
			var notes []string
			var err error
			netFigs, notes, err = driveNet(ctx, hostHTTP, hostBulk, cfg.net)
			b.info = append(b.info, notes...)
			if err != nil {
				b.err = fmt.Errorf("network benchmarks: %v", err)
			}
			quit(ctx, "http://"+hostHTTP+"/quit")
		case e = <-done:
			waitDone = false
		}
	}
	if waitDone {
		select {
		case e = <-done:
		case <-time.After(30 * time.Second): // GET /quit did not end it
			cancel()
			e = <-done
		}
	}
	b.lines = log.snapshot()
	b.figs = figures{}
	first := time.Time{}
	sawDone := false
	var clocks []clockMark
	for _, ln := range b.lines {
		s := programLine(ln.text)
		if s == "" {
			continue
		}
		if first.IsZero() {
			first = ln.at
		}
		switch {
		case strings.HasPrefix(s, "BENCH "):
			if n, f, ok := parseBench(s); ok {
				b.figs[n] = f
			}
		case strings.HasPrefix(s, "CLOCK "):
			if d, ok := parseClock(s); ok {
				clocks = append(clocks, clockMark{d, ln.at})
			}
		case strings.HasPrefix(s, "INFO "):
			b.info = append(b.info, strings.TrimPrefix(s, "INFO "))
		case s == "DONE":
			sawDone = true
		}
	}
	for k, v := range netFigs {
		b.figs[k] = v
	}
	for k, v := range e.extra {
		b.figs[k] = v
	}
	if !first.IsZero() && !e.started.IsZero() {
		b.figs["boot_to_main"] = figure{round1(ms(first.Sub(e.started))), "ms"}
	}
	// The probe's verdict (a boot it stopped ends here), then the whole run's.
	if len(clocks) >= 2 {
		if b.clockErr = checkClock(clocks[0], clocks[1], 0); b.clockErr != nil {
			b.err = fmt.Errorf("stopped at the start: %v", b.clockErr)
			return b
		}
		if b.clockErr = checkClock(clocks[0], clocks[len(clocks)-1], 2*time.Second); b.clockErr != nil {
			b.err = errors.Join(b.err, b.clockErr)
		}
	}
	switch {
	case e.err != nil:
		b.err = errors.Join(b.err, e.err)
	case !sawDone && b.err == nil:
		b.err = fmt.Errorf("the program did not finish (no DONE line)")
	}
	if b.err != nil {
		b.err = fmt.Errorf("%v\n%s", b.err, tail(b.lines, 12))
	}
	return b
}

// clockMark is a guest's CLOCK line: its CLOCK_BOOTTIME, and when the host received it.
type clockMark struct {
	guest time.Duration
	host  time.Time
}

// parseClock reads a program's "CLOCK 1234.5 ms".
func parseClock(s string) (time.Duration, bool) {
	f := strings.Fields(s)
	if len(f) != 3 || f[0] != "CLOCK" || f[2] != "ms" {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil || !(v >= 0 && v <= 1e9) { // NaN fails both
		return 0, false
	}
	return time.Duration(v * 1e6), true
}

// checkClock compares the time the guest's clock and the host's clock saw pass between two
// CLOCK lines. A guest's figures are timed with its own clock: if that clock ran at another
// rate than the host's, they are wrong by that factor. Seen on this 2-core VM under load:
// gmpos measures its TSC's rate once at boot over 10 ms of PIT time (kernel/clock.go), and a
// vCPU thread descheduled inside that window makes the rate too high and the clock slow
// (6 boots measured 2.45 to 5.9 GHz; the rate is 2.445 GHz); Linux with tsc=reliable on TSCs
// that TCG does not keep in step once ran 5× fast. A difference of more than 10% is an error,
// unless less than minHost passed on the host (the serial line's delays and the host's own
// scheduling, tens of ms at worst, would matter). The whole run is longer than 10 s (the HTTP
// load alone), where those delays are well below 1%; the probe at the start spans 2 s of the
// guest's clock, enough to catch the large errors early (a false alarm costs one boot).
func checkClock(a, b clockMark, minHost time.Duration) error {
	host := b.host.Sub(a.host)
	guest := b.guest - a.guest
	if host < minHost {
		return nil
	}
	if r := float64(guest) / float64(host); r < 0.9 || r > 1.1 {
		return fmt.Errorf("the guest's clock is off: %.1f s passed on it while %.1f s passed on the host (%.2f×); its own timings are wrong",
			guest.Seconds(), host.Seconds(), r)
	}
	return nil
}

// quit asks the program to end.
func quit(ctx context.Context, url string) {
	c := &http.Client{Timeout: 10 * time.Second}
	for i := 0; i < 3; i++ {
		if err := get(ctx, c, url); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freePorts returns n TCP ports on 127.0.0.1 that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// forwards returns QEMU's forwards of the two servers from hostPorts.
func forwards(hostPorts []int) runner.Network {
	return runner.Network{Mode: runner.NetUser, HostFwd: []runner.HostFwd{
		{Host: hostPorts[0], Guest: guestHTTPPort}, {Host: hostPorts[1], Guest: guestBulkPort}}}
}

// The file benchmark's shared directory (main.go makes the host's).
var benchShareHost string

const benchShareGuest = "/bench-share"

// gmposKOpts are the kernel options of every gmpos boot (-kopt).
var gmposKOpts kopts

// kopts collects repeated -kopt flags.
type kopts []string

func (k *kopts) String() string     { return strings.Join(*k, " ") }
func (k *kopts) Set(v string) error { *k = append(*k, v); return nil }

// gmposLaunch boots pkg under gmpos with the runner.
func gmposLaunch(pkg string, m runner.Machine, hostPorts []int) launch {
	return func(ctx context.Context, args []string, out io.Writer) (time.Time, figures, error) {
		var stderr, log bytes.Buffer
		cfg := runner.DefaultConfig()
		cfg.Machine = m
		cfg.Stdout, cfg.Stderr, cfg.Log = out, &stderr, &log
		cfg.Net = forwards(hostPorts)
		cfg.Args = args
		cfg.KOpts = gmposKOpts
		cfg.Shares = []runner.Share{{Host: benchShareHost, Guest: benchShareGuest}}
		res, err := runner.Run(ctx, []string{pkg}, cfg)
		if err != nil {
			return time.Time{}, nil, fmt.Errorf("runner: %v", firstLines(err.Error(), 12))
		}
		extra := figures{}
		if !res.Entry.IsZero() {
			extra["qemu_start_to_kernel_entry"] = figure{round1(ms(res.Entry.Sub(res.QEMUStart))), "ms"}
		}
		if res.ExitCode != 0 {
			return res.QEMUStart, extra, fmt.Errorf("exit %d: %s\n%s%s", res.ExitCode, res.Why,
				firstLines(stderr.String(), 8), firstLines(log.String(), 8))
		}
		return res.QEMUStart, extra, nil
	}
}

// linuxLaunch boots the Linux peer: its kernel, with the bench program as /init.
func linuxLaunch(p *linuxpeer.Peer, m runner.Machine, appendLine string, hostPorts []int) launch {
	return func(ctx context.Context, args []string, out io.Writer) (time.Time, figures, error) {
		cmdline, err := linuxpeer.KernelCmdline(appendLine, append([]string{"-linux-init"}, args...))
		if err != nil {
			return time.Time{}, nil, err
		}
		qemu, err := runner.CheckQEMU()
		if err != nil {
			return time.Time{}, nil, err
		}
		cmd := exec.CommandContext(ctx, qemu, linuxpeer.QEMUArgs(m, p.Kernel.Vmlinuz, p.Initramfs, cmdline, forwards(hostPorts))...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = out, &stderr
		// QEMU must not outlive benchrun (killed by ^C, say).
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		started := time.Now()
		if err := cmd.Start(); err != nil {
			return time.Time{}, nil, err
		}
		if err := cmd.Wait(); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("killed: %v", ctx.Err())
			}
			return started, nil, fmt.Errorf("qemu: %v\n%s", err, firstLines(stderr.String(), 8))
		}
		return started, nil, nil
	}
}

// hostLaunch runs the program natively, its servers on the host ports themselves.
func hostLaunch(bin string, hostPorts []int) launch {
	return func(ctx context.Context, args []string, out io.Writer) (time.Time, figures, error) {
		args = append([]string{fmt.Sprintf("-http=127.0.0.1:%d", hostPorts[0]), fmt.Sprintf("-bulk=127.0.0.1:%d", hostPorts[1])}, args...)
		cmd := exec.CommandContext(ctx, bin, args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = out, &stderr
		started := time.Now()
		if err := cmd.Run(); err != nil {
			return started, nil, fmt.Errorf("%v\n%s", err, firstLines(stderr.String(), 8))
		}
		return started, nil, nil
	}
}

// buildProgram builds the bench program for Linux on amd64 (GOAMD64 as the runner builds gmpos
// guests), statically: the binary both the peer's /init and a native run use.
func buildProgram(pkgDir, out string) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = pkgDir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	if level, _ := runner.GuestGOAMD64(os.Getenv("GOAMD64")); level != "" {
		cmd.Env = append(cmd.Env, "GOAMD64="+level)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkgDir, err, b)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimRight(s, "\n"), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
