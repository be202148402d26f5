// The guest's environment on the command line: -e, -env-file, the defaults, the runtime
// variables that must reach the guest but not the runner or its build; and Ctrl-C.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"gmpos/qemu/runner"
)

// hostRuntimeEnv carries the host's runner.RuntimeEnv variables across the runner's re-exec:
// the re-executed runner has them in this one variable (a JSON object) instead of its own
// environment, where they would act on it.
const hostRuntimeEnv = "GMPOS_HOST_RUNTIME_ENV"

// shedRuntimeEnv re-executes the runner without runner.RuntimeEnv in its environment when the
// host set any of them: `GODEBUG=gctrace=1 gmpos run` is for the guest, and the runner's own
// collector would otherwise print its trace lines on the same terminal. It returns only when no
// re-exec is needed or possible (then the variables stay, as before).
func shedRuntimeEnv() {
	if _, done := os.LookupEnv(hostRuntimeEnv); done {
		return
	}
	carried := map[string]string{}
	var kept []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if isRuntime(k) {
			carried[k] = v
		} else {
			kept = append(kept, kv)
		}
	}
	if len(carried) == 0 {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	b, _ := json.Marshal(carried)
	syscall.Exec(exe, os.Args, append(kept, hostRuntimeEnv+"="+string(b))) // returns only on failure
}

func isRuntime(k string) bool {
	for _, r := range runner.RuntimeEnv {
		if k == r {
			return true
		}
	}
	return false
}

// hostLookup is os.LookupEnv, except that the runtime variables come from hostRuntimeEnv after
// a re-exec.
func hostLookup(k string) (string, bool) {
	if isRuntime(k) {
		if j, ok := os.LookupEnv(hostRuntimeEnv); ok {
			m := map[string]string{}
			if json.Unmarshal([]byte(j), &m) == nil {
				v, ok := m[k]
				return v, ok
			}
		}
	}
	return os.LookupEnv(k)
}

// guestEnv assembles the environment: the defaults, then each -env-file, then -kopt env=
// options and -e flags in the order given (later ones win).
func guestEnv(envFiles, vars []string) ([]string, error) {
	lists := [][]string{runner.DefaultEnv(hostLookup)}
	for _, f := range envFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("-env-file: %v", err)
		}
		l, err := runner.ParseEnvFile(f, data)
		if err != nil {
			return nil, fmt.Errorf("-env-file: %v", err)
		}
		lists = append(lists, l)
	}
	var given []string
	for _, s := range vars {
		kv, err := runner.ParseEnvVar(s, hostLookup)
		if err != nil {
			return nil, err
		}
		given = append(given, kv)
	}
	return runner.MergeEnv(append(lists, given)...), nil
}

// forwardSignals turns the runner's SIGINT and SIGTERM into signals for the program (the
// returned channel, runner.Config.Signals): the program's signal.Notify handler runs, or the
// signal's default action ends it (status 130 or 143). A second one within 2 s, or the program
// still running grace after the first, stops QEMU instead: cancel, and the run ends with 130.
func forwardSignals(cancel func(), grace time.Duration) <-chan int {
	in := make(chan os.Signal, 4)
	signal.Notify(in, os.Interrupt, syscall.SIGTERM)
	out := make(chan int, 4)
	go func() {
		var last time.Time
		for s := range in {
			if !last.IsZero() && time.Since(last) < 2*time.Second {
				fmt.Fprintln(os.Stderr, "gmpos: second interrupt within 2 s: stopping QEMU")
				cancel()
				return
			}
			if last.IsZero() && grace > 0 {
				time.AfterFunc(grace, func() {
					fmt.Fprintf(os.Stderr, "gmpos: the program did not exit within -grace %v of the signal: stopping QEMU\n", grace)
					cancel()
				})
			}
			last = time.Now()
			select {
			case out <- int(s.(syscall.Signal)):
			default:
			}
		}
	}()
	return out
}
