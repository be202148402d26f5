// Console input: stdin and forwarded signals.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gmpos/qemu/runner"
)

// TestGuestStdin pipes text and then 256 KiB of random bytes — 0xFF and NUL among them, 64
// times the kernel's input ring, so that the receive interrupt is switched off and on many
// times — into a program that counts lines and hashes what it read: the counts and the hash
// must be the host's, and EOF must come after the last byte. With no stdin, read(0) is EOF.
func TestGuestStdin(t *testing.T) {
	in := []byte("one\ntwo\n\xff\xff\x00three\n")
	blob := make([]byte, 256<<10)
	rand.New(rand.NewSource(1)).Read(blob)
	in = append(in, blob...)
	lines := strings.Count(string(in), "\n")
	want := fmt.Sprintf("%d lines, %d bytes, sha256 %x\n", lines, len(in), sha256.Sum256(in))
	g := boot(t, pkg("console"), opts{args: []string{"count"}, stdin: in})
	g.wantCode(t, 0)
	g.wantStdout(t, want)

	g = boot(t, pkg("console"), opts{args: []string{"count"}})
	g.wantCode(t, 0)
	g.wantStdout(t, fmt.Sprintf("0 lines, 0 bytes, sha256 %x\n", sha256.Sum256(nil)))
}

// readyWriter collects the guest's stdout and closes ready at the first "ready\n".
type readyWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	ready chan struct{}
	once  sync.Once
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), "ready\n") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// TestGuestSignalForward sends the program signals as the runner forwards a terminal's: through
// signal.Notify it sees SIGINT and SIGTERM and exits 0; without a handler SIGINT's default
// action ends it with status 130, as a shell reports a program killed by Ctrl-C.
func TestGuestSignalForward(t *testing.T) {
	if native() {
		t.Skip("the runner's signal channel")
	}
	for _, c := range []struct {
		mode, want string
		sig, code  int
	}{
		{"notify", "ready\ngot interrupt\n", 2, 0},
		{"notify", "ready\ngot terminated\n", 15, 0},
		{"default", "ready\n", 2, 130},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.mode, c.sig), func(t *testing.T) {
			out := &readyWriter{ready: make(chan struct{})}
			var stderr, log strings.Builder
			sigs := make(chan int, 1)
			cfg := runner.DefaultConfig()
			cfg.Stdout, cfg.Stderr, cfg.Log = out, &stderr, &log
			cfg.Timeout, cfg.Args, cfg.Signals, cfg.Net.Mode = time.Minute, []string{c.mode}, sigs, runner.NetNone
			go func() {
				<-out.ready
				sigs <- c.sig
			}()
			res, err := runner.Run(context.Background(), pkg("console"), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != c.code || out.b.String() != c.want {
				t.Errorf("exit %d, stdout %q; want %d, %q\nstderr: %s\nlog: %s", res.ExitCode, out.b.String(), c.code, c.want, stderr.String(), log.String())
			}
		})
	}
}

// TestGuestCtrlC is Ctrl-C at the command: the first SIGINT to the runner reaches the program;
// a program that ignores it keeps running until a second one, within 2 s, stops QEMU with
// status 130.
func TestGuestCtrlC(t *testing.T) {
	if native() {
		t.Skip("the runner's flags")
	}
	cli := filepath.Join(t.TempDir(), "gmpos")
	if out, err := exec.Command("go", "build", "-o", cli, "../qemu").CombinedOutput(); err != nil {
		t.Fatalf("building the command: %v\n%s", err, out)
	}
	cmd := exec.Command(cli, "run", "-net", "none", "./testdata/console", "--", "ignore")
	out := &readyWriter{ready: make(chan struct{})}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.ready:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no ready line; stderr:\n%s", stderr.String())
	}
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "second interrupt") || strings.Contains(out.b.String(), "still here") {
		t.Errorf("%v; stdout %q; stderr:\n%s", err, out.b.String(), stderr.String())
	}
}
