// The guest's environment, through the command's flags.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuestEnvFlags runs the command itself (built here) as a user would: the defaults (PATH,
// HOME, the host's TERM), -env-file, -e (which wins), the older -kopt env=, and the Go runtime's
// variables forwarded from the host — GODEBUG=gctrace=1 must reach the guest's runtime, which
// then prints its collector's trace. Then the refusals: an -env-file line without '=', and a
// variable longer than Linux passes, exit 125 with the reason and boot nothing.
func TestGuestEnvFlags(t *testing.T) {
	if native() {
		t.Skip("the runner's flags")
	}
	dir := t.TempDir()
	cli := filepath.Join(dir, "gmpos")
	if out, err := exec.Command("go", "build", "-o", cli, "../qemu").CombinedOutput(); err != nil {
		t.Fatalf("building the command: %v\n%s", err, out)
	}
	envFile := filepath.Join(dir, "env")
	os.WriteFile(envFile, []byte("# the file\nFOO=from the file\nFILE=1\n"), 0o644)
	cmd := exec.Command(cli, "run", "-net", "none", "-env-file", envFile, "-e", "FOO=bar", "-e", "SP=a b=c",
		"-kopt", "env=OLD=1", "-e", "HOSTVAR", "./testdata/printenv")
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "GOGC=50", "TERM=dumb", "HOSTVAR=from the host")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	want := "FILE=1\nFOO=bar\nGODEBUG=gctrace=1\nGOGC=50\nHOME=/\nHOSTVAR=from the host\nOLD=1\n" +
		"PATH=/usr/local/bin:/usr/bin:/bin\nSP=a b=c\nTERM=dumb\n"
	if stdout.String() != want {
		t.Errorf("guest environment:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if !strings.Contains(stderr.String(), "gc 1 @") {
		t.Errorf("GODEBUG=gctrace=1 did not reach the guest's runtime; stderr:\n%s", stderr.String())
	}

	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"-env-file", envFile + ".bad"}, "env.bad:2: want KEY=VALUE"},
		{[]string{"-env-file", envFile + ".big"}, "MAX_ARG_STRLEN"},
	} {
		os.WriteFile(envFile+".bad", []byte("A=1\nnot a variable\n"), 0o644)
		os.WriteFile(envFile+".big", []byte("BIG="+strings.Repeat("x", 200<<10)+"\n"), 0o644)
		cmd := exec.Command(cli, append(append([]string{"run", "-net", "none"}, c.args...), "./testdata/printenv")...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || !strings.Contains(string(out), c.why) {
			t.Errorf("%q: %v, output %q; want exit 125 saying %q", c.args[0], err, out, c.why)
		}
	}
}

// TestGuestArgvWhole passes what execve would and the kernel command line could not: 1,000
// arguments — empty ones, ones with blanks, quotes, % and bytes above 0x7f, and 64 KiB ones —
// and 500 environment variables, through the argument module; the program hashes what it got.
func TestGuestArgvWhole(t *testing.T) {
	var args, env []string
	for i := range 1000 {
		switch i % 100 {
		case 0:
			args = append(args, "")
		case 1:
			args = append(args, strings.Repeat(string(rune('a'+i%26)), 64<<10))
		default:
			args = append(args, fmt.Sprintf("arg %d \"q\" 100%% \xff", i))
		}
	}
	for i := range 500 {
		env = append(env, fmt.Sprintf("V%d=value %d", i, i))
	}
	want := fmt.Sprintf("1000 args %x\n500 env %x\n", sha256.Sum256([]byte(strings.Join(args, "\x00"))),
		sha256.Sum256([]byte(strings.Join(env, "\x00"))))
	g := boot(t, pkg("argv"), opts{args: args, env: env})
	g.wantCode(t, 0)
	g.wantStdout(t, want)
}
