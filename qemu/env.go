// The guest's environment on the command line: -e, -env-file, the defaults, and the runtime
// variables that must reach the guest but not the runner or its build.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"

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
	env := runner.MergeEnv(append(lists, given)...)
	if len(env) > runner.MaxEnv {
		return nil, fmt.Errorf("%d environment variables: the kernel passes at most %d to the program", len(env), runner.MaxEnv)
	}
	return env, nil
}
