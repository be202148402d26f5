// procs starts copies of itself as child processes, the way os/exec and the standard library's
// tests do (exec.Command(os.Args[0], ...)), and checks what a parent sees: exit codes, output
// through pipes, stdin, the environment, the working directory, signals, errors for files that
// cannot run, and wait's bookkeeping. Each check prints "check NAME: true" when it holds; the
// same lines come out natively (GMPOS_GUEST=native).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 {
		child(os.Args[1], os.Args[2:])
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Println("check os.Executable:", err)
		os.Exit(1)
	}
	run := func(args ...string) *exec.Cmd { return exec.Command(exe, args...) }

	report := func(name string, ok bool, detail ...any) {
		if !ok {
			fmt.Printf("check %s: false %v\n", name, detail)
			return
		}
		fmt.Printf("check %s: true\n", name)
	}

	// Exit codes, one child after another (the exec region is reused).
	for _, code := range []int{0, 1, 7, 255} {
		err := run("exit", fmt.Sprint(code)).Run()
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			got = -1
		}
		report(fmt.Sprintf("exit code %d", code), got == code, err)
	}

	// Output through a pipe, arguments (an empty one and one with spaces), pid and ppid.
	out, err := run("hello", "", "a b").Output()
	want := fmt.Sprintf("args=[\"\" \"a b\"] ppid=%d", os.Getpid())
	report("stdout through a pipe", err == nil && strings.HasPrefix(string(out), want), err, string(out))
	report("child's pid is its own", err == nil && !strings.Contains(string(out), fmt.Sprintf(" pid=%d\n", os.Getpid())), string(out))

	// stdout and stderr interleaved into one pipe.
	out, err = run("both").CombinedOutput()
	report("stdout and stderr combined", err == nil && string(out) == "out1\nerr1\nout2\n", err, string(out))

	// stdin from the parent.
	cmd := run("count")
	cmd.Stdin = strings.NewReader("one\ntwo\nthree\n")
	out, err = cmd.Output()
	report("stdin from the parent", err == nil && string(out) == "3\n", err, string(out))

	// The environment: exactly what the parent gives.
	cmd = run("env", "GMPOS_PROCS")
	cmd.Env = []string{"GMPOS_PROCS=42", "OTHER=x"}
	out, err = cmd.Output()
	report("environment", err == nil && string(out) == "GMPOS_PROCS=42 n=2\n", err, string(out))

	// The working directory: the child's own; the parent's stays.
	dir, _ := os.Getwd()
	tmp, _ := filepath.EvalSymlinks(os.TempDir())
	cmd = run("pwd")
	cmd.Dir = tmp
	out, err = cmd.Output()
	now, _ := os.Getwd()
	report("working directory", err == nil && string(out) == tmp+"\n" && now == dir, err, string(out), now)

	// A child that panics: status 2, the panic on its stderr.
	out, err = run("panic").CombinedOutput()
	var ee *exec.ExitError
	report("panic in the child", errors.As(err, &ee) && ee.ExitCode() == 2 && strings.Contains(string(out), "panic: from the child"), err)

	// A child killed by a signal: the parent sees the signal.
	cmd = run("sleep")
	pr, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		report("kill a child", false, err)
	} else {
		bufio.NewReader(pr).ReadString('\n') // it is running
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		report("kill a child", err != nil && ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM, err)
	}

	// A child that catches SIGINT and exits 0.
	cmd = run("catch")
	pr, _ = cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		report("signal caught by the child", false, err)
	} else {
		r := bufio.NewReader(pr)
		r.ReadString('\n')
		cmd.Process.Signal(os.Interrupt)
		line, _ := r.ReadString('\n')
		err := cmd.Wait()
		report("signal caught by the child", err == nil && line == "caught interrupt\n", err, line)
	}

	// Files that cannot run: as Linux says.
	_, err = exec.Command("/nonexistent/prog").Output()
	report("no such file", errors.Is(err, syscall.ENOENT), err)
	script := filepath.Join(tmp, "procs-script")
	os.WriteFile(script, []byte("not an executable\n"), 0o755)
	_, err = exec.Command(script).Output()
	report("not an executable", errors.Is(err, syscall.ENOEXEC), err)
	noexec := filepath.Join(tmp, "procs-noexec")
	os.WriteFile(noexec, []byte("\x7fELF"), 0o644)
	_, err = exec.Command(noexec).Output()
	report("no execute permission", errors.Is(err, syscall.EACCES), err)
	os.Remove(script)
	os.Remove(noexec)

	// wait: nothing left to reap.
	_, err = syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
	report("no children left", err == syscall.ECHILD, err)

	// Three at once, each in an address space of its own: the same variable at the same address
	// holds each child's own value (kernel/proc.go: a page table per child).
	var cmds [3]*exec.Cmd
	var outs [3]strings.Builder
	startErr := error(nil)
	for i := range cmds {
		cmds[i] = run("global", fmt.Sprint(100+i))
		cmds[i].Stdout = &outs[i]
		if err := cmds[i].Start(); err != nil {
			startErr = err
		}
	}
	addrs := map[string]bool{}
	own := 0
	for i, c := range cmds {
		if c.Process != nil {
			c.Wait()
		}
		var v int
		var at string
		fmt.Sscan(outs[i].String(), &v, &at)
		if v == 100+i {
			own++
		}
		addrs[at] = true
	}
	report("three children at once", startErr == nil && own == 3 && len(addrs) == 1, startErr, own, addrs)
}

// global is set by each "global" child to its own value.
var global int

// child runs one role in a copy of the program.
func child(role string, args []string) {
	switch role {
	case "exit":
		var code int
		fmt.Sscan(args[0], &code)
		os.Exit(code)
	case "hello":
		fmt.Printf("args=%q ppid=%d pid=%d\n", args, os.Getppid(), os.Getpid())
	case "both":
		fmt.Println("out1")
		fmt.Fprintln(os.Stderr, "err1")
		fmt.Println("out2")
	case "count":
		n := 0
		for s := bufio.NewScanner(os.Stdin); s.Scan(); n++ {
		}
		fmt.Println(n)
	case "env":
		fmt.Printf("%s=%s n=%d\n", args[0], os.Getenv(args[0]), len(os.Environ()))
	case "pwd":
		d, _ := os.Getwd()
		fmt.Println(d)
	case "panic":
		panic("from the child")
	case "global":
		fmt.Sscan(args[0], &global)
		time.Sleep(300 * time.Millisecond) // the others run meanwhile
		fmt.Println(global, fmt.Sprintf("%p", &global))
	case "sleep":
		fmt.Println("running")
		time.Sleep(time.Minute)
	case "catch":
		c := make(chan os.Signal, 1)
		signalNotify(c)
		fmt.Println("ready")
		s := <-c
		fmt.Println("caught", strings.ToLower(s.String()))
	}
}
