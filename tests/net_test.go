// QEMU network tests: the guest as HTTP server and client, loopback sockets, malformed frames.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gmpos/kernel/netabi"
	"gmpos/qemu/runner"
)

// # Policy
//
// make test runs this suite three times (1, 2 and 4 vCPUs). Each network test boots once per
// pass and puts as many checks as it can into that boot (boots cost ~1-2 s plus the build).
// The expensive parts — 64 MiB each way in TestGuestNetHTTPClient, the 100,000 injected
// frames in TestGuestNetHTTPServer, netloop on user networking — run in one pass only: the
// 1-vCPU one (GMPOS_TEST_SMP unset or 1), where TCG is fastest and the run is deterministic
// enough to judge throughput and frame accounting. GMPOS_TEST_NET_HEAVY=1 forces them in any
// pass, =0 (or -short) leaves them out. The other passes still run everything else: the HTTP
// server checks (keep-alive, short connections, leaks, the poller counters), the client with
// 4 MiB, netloop without a NIC.
//
// With GMPOS_GUEST=native the same programs run on the host (no hostfwd: the server listens
// on the host port itself; no frame injection, no kernel counters): this checks the tests.

// netHeavy says whether the expensive checks run in this pass, and why.
func netHeavy() (bool, string) {
	switch os.Getenv("GMPOS_TEST_NET_HEAVY") {
	case "1":
		return true, "GMPOS_TEST_NET_HEAVY=1"
	case "0":
		return false, "GMPOS_TEST_NET_HEAVY=0"
	}
	if testing.Short() {
		return false, "-short"
	}
	if n := guestSMP(opts{}); n != 1 {
		return false, fmt.Sprintf("%d vCPUs: they run in the 1-vCPU pass (GMPOS_TEST_NET_HEAVY=1 forces them)", n)
	}
	return true, "1 vCPU"
}

// guestSMP is the vCPU count boot gives a guest (harness_test.go).
func guestSMP(o opts) int {
	if o.smp > 0 {
		return o.smp
	}
	if n, err := strconv.Atoi(os.Getenv("GMPOS_TEST_SMP")); err == nil && n > 0 {
		return n
	}
	return 1
}

// requireQEMU skips the test when QEMU is not installed (native runs need no QEMU).
func requireQEMU(t *testing.T) {
	t.Helper()
	if native() {
		return
	}
	if _, err := runner.CheckQEMU(); err != nil {
		t.Skipf("the network tests boot QEMU: %v", err)
	}
}

// freePort returns a port on 127.0.0.1 that was free a moment ago (network "tcp" or "udp").
func freePort(t *testing.T, network string) int {
	t.Helper()
	if network == "udp" {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// syncBuffer is a bytes.Buffer safe for the runner's writers and the test reading at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// bgGuest is a guest running in the background while the test talks to it over the network.
type bgGuest struct {
	stdout, stderr, log syncBuffer
	done                chan struct{} // closed when the guest has ended; then g and err are set
	g                   guest
	err                 error // the runner failed, or the test stopped the guest
	cancel              context.CancelFunc
}

// startGuest builds and boots pkg as boot does, with network nw, without waiting for it. The
// guest is stopped when the test ends.
func startGuest(t *testing.T, pkg []string, o opts, nw runner.Network) *bgGuest {
	t.Helper()
	cfg := runner.DefaultConfig()
	if !native() {
		selectMachine(t, &cfg, o) // before the cleanup below, which waits for a guest
		if nw.Mode == runner.NetUser || len(nw.HostFwd) > 0 {
			skipWithoutPCIDevices(t, o)
		}
	}
	if o.timeout == 0 {
		o.timeout = defaultTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &bgGuest{done: make(chan struct{}), cancel: cancel}
	t.Cleanup(func() { cancel(); <-b.done })
	if native() {
		bin := buildNative(t, pkg)
		cmd := exec.CommandContext(ctx, bin, o.args...)
		cmd.Stdout, cmd.Stderr = &b.stdout, &b.stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("native run: %v", err)
		}
		go func() {
			defer close(b.done)
			var timedOut atomic.Bool
			tm := time.AfterFunc(o.timeout, func() { timedOut.Store(true); cancel() })
			err := cmd.Wait()
			tm.Stop()
			b.g = guest{stdout: b.stdout.String(), stderr: b.stderr.String()}
			var ee *exec.ExitError
			switch {
			case timedOut.Load():
				b.g.code, b.g.why = runner.ExitTimeout, "timeout: killed after "+o.timeout.String()
			case ctx.Err() != nil:
				b.err = ctx.Err()
			case errors.As(err, &ee):
				b.g.code = ee.ExitCode()
			case err != nil:
				b.err = err
			}
		}()
		return b
	}
	cfg.Stdout, cfg.Stderr, cfg.Log = &b.stdout, &b.stderr, &b.log
	cfg.Timeout = o.timeout
	cfg.KOpts, cfg.Args = o.kopts, o.args
	cfg.SMP = guestSMP(o)
	cfg.Net = nw
	go func() {
		defer close(b.done)
		res, err := runner.Run(ctx, pkg, cfg)
		b.g = guest{stdout: b.stdout.String(), stderr: b.stderr.String(), log: b.log.String(), res: res}
		if err != nil {
			b.err = err
			return
		}
		b.g.code, b.g.why = res.ExitCode, res.Why
		t.Logf("%s: exit %d; build %v, boot+run %v", strings.Join(pkg, " "), res.ExitCode,
			res.BuildTime.Round(time.Millisecond), res.End.Sub(res.QEMUStart).Round(time.Millisecond))
	}()
	return b
}

// buildNative builds pkg for the host as runNative does and returns the binary.
func buildNative(t *testing.T, pkg []string) string {
	t.Helper()
	root, err := runner.FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	tg, err := runner.Resolve(pkg, root)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "guest")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = tg.Dir
	if tg.Kind == runner.KindPlain {
		cmd = exec.Command("go", append([]string{"build", "-o", bin}, tg.Files...)...)
		cmd.Dir = root
	}
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("native build: %v\n%s", err, out)
	}
	return bin
}

// exited reports whether the guest has ended.
func (b *bgGuest) exited() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// wait waits up to d for the guest to end by itself and returns the outcome; it fails the
// test (with the guest's output) if the guest does not end or the runner failed.
func (b *bgGuest) wait(t *testing.T, d time.Duration) guest {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(d):
		b.fatalf(t, "the guest did not exit within %v", d)
	}
	if b.err != nil {
		b.g.dump(t)
		t.Fatalf("runner: %v", b.err)
	}
	return b.g
}

// fatalf stops the guest and fails the test with everything the guest printed so far.
func (b *bgGuest) fatalf(t *testing.T, format string, a ...any) {
	t.Helper()
	b.stop()
	b.dumpNow(t)
	t.Fatalf(format, a...)
}

// stop ends the guest (QEMU is killed) and waits for the runner to return.
func (b *bgGuest) stop() {
	b.cancel()
	<-b.done
}

func (b *bgGuest) dumpNow(t *testing.T) {
	t.Helper()
	t.Logf("guest output so far (runner: %v)\n--- stdout\n%s--- stderr\n%s--- runner log\n%s",
		b.err, b.stdout.String(), b.stderr.String(), b.log.String())
}

// alive fails the test if the guest has ended.
func (b *bgGuest) alive(t *testing.T) {
	t.Helper()
	if b.exited() {
		t.Fatalf("the guest has ended (exit %d %s; runner: %v)", b.g.code, b.g.why, b.err)
	}
}

// waitOutput waits until the guest's stdout contains s; it fails the test if the guest ends
// first or limit passes (the build counts: it comes before the boot).
func (b *bgGuest) waitOutput(t *testing.T, s string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); !strings.Contains(b.stdout.String(), s); {
		if time.Now().After(deadline) {
			b.fatalf(t, "the guest did not print %q within %v", s, limit)
		}
		select {
		case <-b.done:
			if strings.Contains(b.stdout.String(), s) {
				return
			}
			b.dumpNow(t)
			t.Fatalf("the guest ended (exit %d %s; runner: %v) before printing %q", b.g.code, b.g.why, b.err, s)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitHTTP polls url until it answers 200; it fails the test if the guest ends first or limit
// passes.
func (b *bgGuest) waitHTTP(t *testing.T, url string, limit time.Duration) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		resp, err := c.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			err = errors.New(resp.Status)
		}
		last = err
		select {
		case <-b.done:
			b.dumpNow(t)
			t.Fatalf("the guest ended before serving %s (last error: %v)", url, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
	b.fatalf(t, "%s did not answer within %v: %v", url, limit, last)
}

// httpGet returns the body of a 200 answer.
func httpGet(c *http.Client, url string) (string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %q", url, resp.Status, body)
	}
	return string(body), err
}

// checkGet GETs base+path from the guest's server and checks its hello.
func checkGet(c *http.Client, base, path string) error {
	body, err := httpGet(c, base+path)
	if err != nil {
		return err
	}
	if want := "hello from gmpos " + path + "\n"; body != want {
		return fmt.Errorf("GET %s: %q, want %q", path, body, want)
	}
	return nil
}

// checkSum POSTs n seeded random bytes to the guest's /sum and checks the checksum it computed.
func checkSum(c *http.Client, base string, n int, seed int64) error {
	body := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(body)
	resp, err := c.Post(base+"/sum", "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("%x %d\n", sha256.Sum256(body), n); string(got) != want {
		return fmt.Errorf("POST /sum of %d bytes: %q, want %q", n, got, want)
	}
	return nil
}

// readStats GETs a page of "name value" lines (/stats, /net).
func readStats(c *http.Client, url string) (map[string]uint64, error) {
	body, err := httpGet(c, url)
	if err != nil {
		return nil, err
	}
	m := map[string]uint64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseUint(v, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: bad line %q", url, sc.Text())
		}
		m[name] = n
	}
	return m, nil
}

// netCounters extracts the kernel's counters (net_N lines, netabi order); nil if there are
// none (native runs) and an error if there are too few.
func netCounters(m map[string]uint64) ([]uint64, error) {
	if _, ok := m["net_0"]; !ok {
		return nil, nil
	}
	c := make([]uint64, netabi.NumNetStats)
	for i := range c {
		v, ok := m[fmt.Sprintf("net_%d", i)]
		if !ok {
			return nil, fmt.Errorf("the guest reports %d network counters, want %d (netabi.NumNetStats)", len(m), len(c))
		}
		c[i] = v
	}
	return c, nil
}

func formatCounters(c []uint64) string {
	var s strings.Builder
	for i, v := range c {
		fmt.Fprintf(&s, " %s=%d", netabi.NetStatNames[i], v)
	}
	return strings.TrimSpace(s.String())
}

// runParallel runs job(0..n-1) on workers goroutines and returns how many failed and the first
// few errors. After 5 failures it starts no more jobs (a hung guest would otherwise cost a
// client timeout per job).
func runParallel(n, workers int, job func(i int) error) (failed int, errs []error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := job(i); err != nil {
					mu.Lock()
					failed++
					if len(errs) < 5 {
						errs = append(errs, fmt.Errorf("request %d: %w", i, err))
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		mu.Lock()
		giveUp := failed >= 5
		mu.Unlock()
		if giveUp {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return failed, errs
}

// TestGuestNetHTTPServer serves HTTP from the guest (nethttp -mode=server) to clients on the
// host through hostfwd, in one boot:
//
//   - keepalive: 1,000 requests (GETs and POSTs with checked bodies) over 16 concurrent
//     keep-alive connections; no more than 16 connections are opened.
//   - short: 200 requests, each on its own connection (opened and closed).
//   - leaks: afterwards the guest's open fds are back to the baseline taken before (one more is
//     allowed: the connection of the request that reads them) and its heap has not grown past
//     2× + 8 MiB.
//   - counters: the kernel's network counters (gmpos_info) show frames both ways, socket
//     requests, an idle core halting while threads waited on the network, and the frames
//     noticed (interrupt or poll); with ≥ 2 vCPUs also the poller finding work.
//   - inject (heavy pass only, see Policy): ≥ 100,000 malformed frames (netinject_test.go)
//     sent to the NIC while HTTP requests keep succeeding; the kernel's rx counters account
//     for ≥ 90% of the frames that were sent within the Ethernet size limit.
//
// Finally GET /quit: the guest must exit 0 (101 would be a kernel fault) and, with klog=1,
// the kernel's closing network counters must be in its log. Outside the heavy pass QEMU also
// records the NIC's frames (-pcap): the guest's first must be its ARP announcement, and QEMU's
// user network must never have asked for its MAC (net_announce_test.go).
func TestGuestNetHTTPServer(t *testing.T) {
	requireQEMU(t)
	heavy, why := netHeavy()
	inject := heavy && !native()
	hostPort := freePort(t, "tcp")
	base := fmt.Sprintf("http://127.0.0.1:%d", hostPort)
	o := opts{kopts: []string{"klog=1"}, timeout: 5 * time.Minute, args: []string{"-mode=server"}}
	nw := runner.Network{Mode: runner.NetUser, HostFwd: []runner.HostFwd{{Host: hostPort, Guest: serverPort}}}
	if inject {
		nw.Inject = fmt.Sprintf("127.0.0.1:%d", freePort(t, "udp"))
	}
	if native() {
		o.args = append(o.args, fmt.Sprintf("-addr=127.0.0.1:%d", hostPort))
		nw = runner.Network{}
	} else if !inject { // the heavy pass's 100,000 injected frames would be recorded too
		nw.Pcap = filepath.Join(t.TempDir(), "nic.pcap")
	}
	t.Logf("vCPUs %d; heavy checks: %v (%s); hostfwd 127.0.0.1:%d → :%d; inject %q",
		guestSMP(o), heavy, why, hostPort, serverPort, nw.Inject)
	b := startGuest(t, pkg("nethttp"), o, nw)
	b.waitOutput(t, "serving on", 5*time.Minute)
	b.waitHTTP(t, base+"/ready", time.Minute)

	short := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	// The baseline: the fewest fds of three reads, each on a fresh connection (the previous
	// request's connection may not be closed yet in the guest when the next one arrives).
	var base0 map[string]uint64
	for i := 0; i < 3; i++ {
		s, err := readStats(short, base+"/stats")
		if err != nil {
			b.fatalf(t, "baseline /stats: %v", err)
		}
		if base0 == nil || s["fds"] < base0["fds"] {
			base0 = s
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("baseline: fds %d heap_inuse %d goroutines %d", base0["fds"], base0["heap_inuse"], base0["goroutines"])

	t.Run("keepalive", func(t *testing.T) {
		b.alive(t)
		const total, conns = 1000, 16
		var d runner.HostFwdDialer
		tr := &http.Transport{DialContext: d.DialContext, MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns}
		defer tr.CloseIdleConnections()
		c := &http.Client{Timeout: 30 * time.Second, Transport: tr}
		t0 := time.Now()
		failed, errs := runParallel(total, conns, func(i int) error {
			if i%2 == 0 {
				return checkGet(c, base, fmt.Sprintf("/ka/%d", i))
			}
			return checkSum(c, base, rand.New(rand.NewSource(int64(i))).Intn(32<<10), int64(i))
		})
		el := time.Since(t0)
		t.Logf("%d requests on %d connections in %v: %.0f req/s", total, d.Dials(), el.Round(time.Millisecond), total/el.Seconds())
		if failed > 0 {
			t.Fatalf("%d of %d requests failed: %v", failed, total, errs)
		}
		if n := d.Dials(); n > conns {
			t.Errorf("%d connections opened for %d keep-alive clients: the server does not keep connections open", n, conns)
		}
	})

	t.Run("short", func(t *testing.T) {
		b.alive(t)
		const total = 200
		var d runner.HostFwdDialer
		c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
		t0 := time.Now()
		failed, errs := runParallel(total, 4, func(i int) error { return checkGet(c, base, fmt.Sprintf("/short/%d", i)) })
		t.Logf("%d connections in %v", d.Dials(), time.Since(t0).Round(time.Millisecond))
		if failed > 0 {
			t.Fatalf("%d of %d requests failed: %v", failed, total, errs)
		}
		if n := d.Dials(); n != total {
			t.Errorf("%d connections for %d requests without keep-alive", n, total)
		}
	})

	t.Run("leaks", func(t *testing.T) {
		b.alive(t)
		// The server closes a connection when it sees the client's FIN: poll until the fds
		// are back or 10 s have passed.
		var s map[string]uint64
		var err error
		for deadline := time.Now().Add(10 * time.Second); ; {
			if s, err = readStats(short, base+"/stats"); err != nil {
				t.Fatalf("/stats: %v", err)
			}
			if s["fds"] <= base0["fds"]+1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Logf("after: fds %d heap_inuse %d goroutines %d", s["fds"], s["heap_inuse"], s["goroutines"])
		if s["fds"] > base0["fds"]+1 {
			t.Errorf("%d fds open after the connections closed, %d before: a socket leaks", s["fds"], base0["fds"])
		}
		if limit := 2*base0["heap_inuse"] + 8<<20; s["heap_inuse"] > limit {
			t.Errorf("heap in use %d bytes, %d before (limit %d)", s["heap_inuse"], base0["heap_inuse"], limit)
		}
	})

	t.Run("counters", func(t *testing.T) {
		b.alive(t)
		s, err := readStats(short, base+"/net")
		if err != nil {
			t.Fatalf("/net: %v", err)
		}
		c, err := netCounters(s)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			if !native() {
				t.Fatal("the guest reports no network counters (gmpos_info InfoNetStats failed)")
			}
			t.Skip("no kernel counters natively")
		}
		t.Logf("counters: %s", formatCounters(c))
		for _, i := range []int{netabi.NetRxFrames, netabi.NetTxFrames, netabi.NetRequests, netabi.NetSockets} {
			if c[i] == 0 {
				t.Errorf("%s is 0", netabi.NetStatNames[i])
			}
		}
		// Between requests every core idles while the stack's receiver waits on the NIC: with
		// any number of vCPUs a core has halted with network waiters.
		if c[netabi.NetIdleHalts] == 0 {
			t.Errorf("idle_halts is 0: no core halted while threads waited on the network")
		}
		// Frames were noticed by the interrupt or by a poll.
		if c[netabi.NetIRQs] == 0 && c[netabi.NetPollHits] == 0 {
			t.Errorf("irqs and poll_hits are 0: who noticed the frames?")
		}
		// With one vCPU the NIC's interrupt usually wins (the core halts or takes it between
		// polls); with more, the busy cores' findRunnable polls find frames that arrived
		// meanwhile and ready the receiver themselves.
		if guestSMP(o) >= 2 && c[netabi.NetReadyPoll] == 0 {
			t.Errorf("with %d vCPUs, ready_poll is 0: the poller never readied a thread", guestSMP(o))
		}
	})

	if inject {
		t.Run("inject", func(t *testing.T) {
			b.alive(t)
			injectFrames(t, base, nw.Inject)
		})
	} else if native() {
		t.Log("inject: skipped (native run: no NIC)")
	} else {
		t.Logf("inject: skipped (%s)", why)
	}

	// The end: /quit, exit 0, the kernel's closing counters.
	if body, err := httpGet(short, base+"/quit"); err != nil || body != "bye\n" {
		t.Errorf("GET /quit: %q, %v", body, err)
		b.stop()
	}
	g := b.wait(t, time.Minute)
	if g.code == runner.ExitKernelPanic {
		g.dump(t)
		t.Fatalf("kernel fault (exit %d): %s", g.code, g.why)
	}
	g.wantCode(t, 0)
	wantContains(t, g, "stdout", g.stdout, "serving on", "server done")
	if !native() {
		line := kernelLogLine(g.log, netLogMarker)
		if line == "" {
			g.dump(t)
			t.Fatalf("no %q record in the kernel log (klog=1)", netLogMarker)
		}
		t.Logf("kernel's closing counters: %s", line)
	}
	if nw.Pcap != "" {
		checkAnnounced(t, nw.Pcap)
	}
	if t.Failed() {
		g.dump(t)
	}
}

// netLogMarker starts the kernel's closing network counters in the runner's log: the record
// "log net rx_frames=N ..." (klog=1), which the runner prints as "gmpos: kernel: net ...".
var netLogMarker = "net " + netabi.NetStatNames[0] + "="

// kernelLogLine returns the text of the last kernel log record containing sub ("" if none).
func kernelLogLine(log, sub string) string {
	var last string
	for _, l := range strings.Split(log, "\n") {
		if i := strings.Index(l, sub); i >= 0 {
			last = l[i:]
		}
	}
	return last
}

// Injection parameters.
const (
	injectTotal     = 100_000
	injectBurst     = 64              // frames sent back to back
	injectWindow    = 256             // frames sent but not yet counted by the guest, at most (+ a burst)
	injectBudget    = 2 * time.Minute // the whole injection, or the test fails
	injectIdlePolls = 3               // counter reads without progress after which the outstanding frames are written off
	injectSeed      = 1
	injectCheckTick = 25 * time.Millisecond // between the interleaved HTTP checks
)

// injectFrames sends injectTotal malformed frames to the guest's NIC through the runner's
// -netinject address while the guest serves, and checks that HTTP keeps working and that the
// frames reached the kernel.
//
// Pacing: the guest's kernel counts every frame its NIC hands it (rx_frames, or rx_drops for a
// frame it could not take). The injector reads those counters over HTTP (/net) and keeps at
// most injectWindow frames in flight, so that nothing piles up in QEMU (the NIC's queue behind
// the hub drops beyond 10,000 packets) and the run goes at the guest's speed.
//
// Accounting: delta = (rx_frames + rx_drops) after − before also counts frames that were not
// injected: the HTTP traffic of the checks and of the pacing (calibrated below, per request),
// and at most frameStats.MayDrawReply RSTs from QEMU's user network (netinject_test.go). So
// injected ≥ delta − http − replies, a lower bound, which must reach 90% of the frames sent
// within the Ethernet limit (QEMU may drop bigger ones: those are counted apart).
func injectFrames(t *testing.T, base, addr string) {
	mac, err := net.ParseMAC(runner.GuestMAC)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("udp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	pacer := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1}}
	rxTotal := func() (uint64, []uint64, error) {
		s, err := readStats(pacer, base+"/net")
		if err != nil {
			return 0, nil, err
		}
		c, err := netCounters(s)
		if err == nil && c == nil {
			err = errors.New("no network counters")
		}
		if err != nil {
			return 0, nil, err
		}
		return c[netabi.NetRxFrames] + c[netabi.NetRxDrops], c, nil
	}

	// The interleaved checks: GETs and POSTs on a keep-alive connection, every 8th on a
	// connection of its own.
	keep := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1}}
	short := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	check := func(i int) error {
		c := keep
		if i%8 == 7 {
			c = short
		}
		if i%2 == 0 {
			return checkGet(c, base, fmt.Sprintf("/inj/%d", i))
		}
		return checkSum(c, base, 1024+i*37%3072, int64(i))
	}

	// Calibrate the rx frames the HTTP traffic brings (requests, ACKs, handshakes): per
	// counter read, on 20 reads; per check, on 24 checks (the mix the injection runs).
	n0, _, err := rxTotal()
	if err != nil {
		t.Fatalf("/net: %v", err)
	}
	for i := 0; i < 20; i++ {
		if _, _, err := rxTotal(); err != nil {
			t.Fatalf("calibration: /net: %v", err)
		}
	}
	n1, _, err := rxTotal()
	if err != nil {
		t.Fatalf("/net: %v", err)
	}
	for i := 0; i < 24; i++ {
		if err := check(i); err != nil {
			t.Fatalf("calibration: %v", err)
		}
	}
	n2, c0, err := rxTotal()
	if err != nil {
		t.Fatalf("/net: %v", err)
	}
	perPoll := float64(n1-n0) / 21
	perCheck := (float64(n2-n1) - perPoll) / 24
	rx0 := n2

	stop := make(chan struct{})
	checkDone := make(chan struct{})
	var checksOK int
	var checkErrs []error
	go func() {
		defer close(checkDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(injectCheckTick):
			}
			if err := check(i); err != nil {
				checkErrs = append(checkErrs, fmt.Errorf("check %d: %w", i, err))
			} else {
				checksOK++
			}
		}
	}()

	gen := newFrameGen(injectSeed, [6]byte(mac))
	t0 := time.Now()
	var sent, arrived, lost, polls int
	var sendErr error
inject:
	for sent < injectTotal {
		for i := 0; i < injectBurst && sent < injectTotal; i++ {
			if _, err := conn.Write(gen.Next()); err != nil {
				sendErr = fmt.Errorf("sending frame %d: %v (is QEMU gone?)", sent, err)
				break inject
			}
			sent++
		}
		// Wait for the guest to catch up to the window. Frames it will never count (QEMU drops
		// oversized ones, for one) would hold the window shut: when the counter stands still
		// for injectIdlePolls reads, the guest has taken all it will, and the rest is written off.
		for still := 0; sent-arrived-lost > injectWindow; {
			n, _, err := rxTotal()
			polls++
			if err != nil {
				sendErr = fmt.Errorf("/net after %d frames: %v", sent, err)
				break inject
			}
			if a := int(n - rx0); a > arrived {
				arrived, still = a, 0
				continue
			}
			if still++; still >= injectIdlePolls {
				lost = sent - arrived
				break
			}
			time.Sleep(time.Millisecond)
		}
		if time.Since(t0) > injectBudget {
			sendErr = fmt.Errorf("only %d of %d frames sent in %v (%.0f frames/s): the guest takes frames too slowly",
				sent, injectTotal, injectBudget, float64(sent)/injectBudget.Seconds())
			break
		}
	}
	sendTime := time.Since(t0)
	close(stop)
	<-checkDone
	// Let the last frames in, then read the counters once they stand still (but for the
	// frames of the reads themselves).
	var rx1 uint64
	var c1 []uint64
	for deadline, prev := time.Now().Add(10*time.Second), uint64(0); ; {
		time.Sleep(300 * time.Millisecond)
		n, c, err := rxTotal()
		polls++
		if err != nil {
			sendErr = errors.Join(sendErr, fmt.Errorf("/net after the injection: %v", err))
			break
		}
		rx1, c1 = n, c
		if n-prev <= uint64(perPoll+2) || time.Now().After(deadline) {
			break
		}
		prev = n
	}

	st := gen.Stats
	t.Logf("injected %d frames (%d bytes) in %v (%.0f frames/s), %d counter reads; pacing wrote off %d frames",
		st.Frames, st.Bytes, sendTime.Round(time.Millisecond), float64(st.Frames)/sendTime.Seconds(), polls, lost)
	var kinds strings.Builder
	for k, n := range st.ByKind {
		fmt.Fprintf(&kinds, " %s=%d", kindNames[k], n)
	}
	t.Logf("frames by kind:%s; truncated %d, runts (< %d bytes) %d, oversized (> %d bytes) %d, good SYNs to :%d %d",
		kinds.String(), st.Truncated, ethHeader, st.Runts, maxFrame, st.Oversize, serverPort, st.MayDrawReply)
	t.Logf("interleaved HTTP checks (every 8th on a new connection): %d ok, %d failed", checksOK, len(checkErrs))
	if sendErr != nil {
		t.Error(sendErr)
	}
	if len(checkErrs) > 0 {
		t.Errorf("HTTP failed while frames were injected: %d errors, first: %v", len(checkErrs), checkErrs[:min(len(checkErrs), 5)])
	}
	if checksOK < 10 {
		t.Errorf("only %d HTTP checks completed during the injection", checksOK)
	}
	if c1 == nil {
		return
	}
	delta := float64(rx1 - rx0)
	httpFrames := perCheck*float64(checksOK+len(checkErrs)) + perPoll*float64(polls)
	lower := delta - httpFrames - float64(st.MayDrawReply)
	deliverable := float64(st.Frames - st.Oversize)
	t.Logf("rx counted %d (frames %d, drops %d) since the start; HTTP ≈ %.0f (%.2f frames × %d checks + %.2f × %d "+
		"counter reads); replies ≤ %d; so ≥ %.0f injected frames arrived of %d sent ≤ %d bytes (%.1f%%)",
		rx1-rx0, c1[netabi.NetRxFrames]-c0[netabi.NetRxFrames], c1[netabi.NetRxDrops]-c0[netabi.NetRxDrops],
		httpFrames, perCheck, checksOK+len(checkErrs), perPoll, polls, st.MayDrawReply, lower,
		st.Frames-st.Oversize, maxFrame, 100*lower/deliverable)
	t.Logf("counters after: %s", formatCounters(c1))
	if lower < 0.9*deliverable && sendErr == nil {
		t.Errorf("the kernel counted ≥ %.0f of %.0f injected frames (< 90%%): frames are lost between QEMU and the kernel", lower, deliverable)
	}
	// And the server still serves, on a new connection.
	if err := checkSum(short, base, 100_000, 99); err != nil {
		t.Errorf("after the injection: %v", err)
	}
}

// hostServer is the host's side of TestGuestNetHTTPClient: /hello, /sum, /blob, /blobsum.
type hostServer struct {
	srv  *httptest.Server
	blob []byte
	sum  string // hex SHA-256 of blob

	mu        sync.Mutex
	hellos    int
	sums      []int64 // body lengths POSTed to /sum
	blobsSent []int64 // bytes written per GET /blob
}

func newHostServer(blobSize int) *hostServer {
	h := &hostServer{blob: make([]byte, blobSize)}
	rand.New(rand.NewSource(64)).Read(h.blob)
	s := sha256.Sum256(h.blob)
	h.sum = hex.EncodeToString(s[:])
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hellos++
		h.mu.Unlock()
		// A pause the guest must sleep through, so that its receiver is certainly asleep when
		// the reply comes and the NIC's interrupt wakes it (TestGuestNetHTTPClient's ready_irq):
		// the transfers keep one vCPU busy and may never let it sleep (CI once saw ready_irq=0,
		// and 2-5 in runs around it).
		time.Sleep(200 * time.Millisecond)
		io.WriteString(w, "hello from the host\n")
	})
	mux.HandleFunc("/sum", func(w http.ResponseWriter, r *http.Request) {
		d := sha256.New()
		n, err := io.Copy(d, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.sums = append(h.sums, n)
		h.mu.Unlock()
		fmt.Fprintf(w, "%x %d\n", d.Sum(nil), n)
	})
	mux.HandleFunc("/blob", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(h.blob)))
		n, _ := w.Write(h.blob)
		h.mu.Lock()
		h.blobsSent = append(h.blobsSent, int64(n))
		h.mu.Unlock()
	})
	mux.HandleFunc("/blobsum", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, h.sum+"\n")
	})
	h.srv = httptest.NewServer(mux) // on 127.0.0.1: the guest reaches it as 10.0.2.2
	return h
}

// TestGuestNetHTTPClient runs the guest as an HTTP client (nethttp -mode=client) of a server in
// the test, on the host's 127.0.0.1, which QEMU's user network shows the guest as 10.0.2.2:
// GET /hello, POST N MiB to /sum (the host's checksum must match the guest's), GET N MiB from
// /blob (the guest's checksum must match /blobsum). N is 64 in the heavy pass, 4 otherwise.
// The host checks it got one POST of N MiB and sent the whole blob; the BENCH lines are logged.
//
// The kernel runs with netpoll=0: its network poller never looks at the NIC, so every frame
// must be noticed by the NIC's interrupt — the guarantee the kernel's paths without the big
// kernel lock rely on, since they never poll (kernel/nic.go nicIRQ). The closing counters must
// show no poll and the receiver readied by the interrupt. A frame left in the ring with the
// interrupt off would stall the transfer until the test's timeout: nicIRQ without its re-enable
// (an interrupt whose frame a read had already taken left the interrupt off) did, on 1 and 4
// vCPUs, the POST timing out after 2 minutes (2 vCPUs passed).
func TestGuestNetHTTPClient(t *testing.T) {
	skipWithoutPCIDevices(t, opts{})
	requireQEMU(t)
	heavy, why := netHeavy()
	mib := 4
	if heavy {
		mib = 64
	}
	t.Logf("%d MiB each way (heavy checks: %v, %s)", mib, heavy, why)
	h := newHostServer(mib << 20)
	defer h.srv.Close()
	port := h.srv.Listener.Addr().(*net.TCPAddr).Port
	url := fmt.Sprintf("http://10.0.2.2:%d", port)
	if native() {
		url = h.srv.URL
	}
	// The network is auto: nethttp imports net, so the runner gives it user networking.
	g := boot(t, pkg("nethttp"), opts{
		args:    []string{"-mode=client", "-url=" + url, fmt.Sprintf("-mib=%d", mib)},
		kopts:   []string{"klog=1", "netpoll=0"},
		timeout: 5 * time.Minute,
	})
	if g.code == runner.ExitKernelPanic {
		g.dump(t)
		t.Fatalf("kernel fault (exit %d): %s", g.code, g.why)
	}
	g.wantCode(t, 0)
	wantContains(t, g, "stdout", g.stdout, "ok get\n", "ok post ", fmt.Sprintf("ok blob %d bytes", mib<<20), "client done\n")
	for _, l := range strings.Split(g.stdout, "\n") {
		if strings.HasPrefix(l, "BENCH ") {
			t.Log(l)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hellos != 1 || len(h.sums) != 1 || h.sums[0] != int64(mib<<20) || len(h.blobsSent) != 1 || h.blobsSent[0] != int64(mib<<20) {
		g.dump(t)
		t.Fatalf("the host saw %d GET /hello, POST /sum of %v bytes, GET /blob writing %v bytes; want 1, [%d], [%d]",
			h.hellos, h.sums, h.blobsSent, mib<<20, mib<<20)
	}
	if native() {
		return
	}
	line := kernelLogLine(g.log, netLogMarker)
	t.Logf("kernel's closing counters: %s", line)
	polls, readyIRQ := klogCounter(t, line, "polls"), klogCounter(t, line, "ready_irq")
	if polls != 0 || readyIRQ == 0 {
		t.Errorf("with netpoll=0: %d polls, %d threads readied by the NIC's interrupt; want none and some", polls, readyIRQ)
	}
}

// netloopChecks are the checks testdata/netloop prints "ok NAME" for, in order.
var netloopChecks = []string{"tcp_echo", "udp_echo", "lookup_localhost", "refused", "addrinuse",
	"eof_after_close", "epipe_sigpipe", "connect_timeout", "ipv6_unsupported", "stack_errno_range"}

// TestGuestNetLoop runs sockets over the guest's loopback (testdata/netloop): without a NIC
// (-net none: the stack serves loopback only) in every pass, and with user networking (a NIC
// present, which loopback traffic must not touch) in the heavy pass. Every check must print
// "ok NAME", then "netloop done", exit 0.
func TestGuestNetLoop(t *testing.T) {
	requireQEMU(t)
	if native() {
		t.Skip("gmpos's behaviour: netloop expects EAFNOSUPPORT for IPv6 sockets")
	}
	heavy, why := netHeavy()
	for _, mode := range []runner.NetMode{runner.NetNone, runner.NetUser} {
		t.Run(string(mode), func(t *testing.T) {
			if mode == runner.NetUser && !heavy {
				t.Skipf("with a NIC only in the heavy pass (%s)", why)
			}
			b := startGuest(t, pkg("netloop"), opts{kopts: []string{"klog=1"}}, runner.Network{Mode: mode})
			g := b.wait(t, defaultTimeout+5*time.Minute) // the build comes first
			if g.res != nil && g.res.Net != mode {
				t.Errorf("booted with network %q, want %q", g.res.Net, mode)
			}
			g.wantCode(t, 0)
			want := make([]string, 0, len(netloopChecks)+1)
			for _, c := range netloopChecks {
				want = append(want, "ok "+c+"\n")
			}
			wantContains(t, g, "stdout", g.stdout, append(want, "netloop done\n")...)
			if line := kernelLogLine(g.log, netLogMarker); line != "" {
				t.Logf("kernel's closing counters: %s", line)
			}
		})
	}
}
