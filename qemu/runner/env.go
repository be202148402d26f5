// The guest program's environment, and the variables that belong to it rather than to the build.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// RuntimeEnv are the Go runtime's own variables. Set on the host, they are meant for the
// program: `GODEBUG=gctrace=1 gmpos run ./prog` traces the guest's collector. So the runner
// forwards them to the guest and keeps them out of `go build` (BuildEnviron), whose compiler
// would otherwise print its own gctrace lines next to the guest's; the command re-executes
// itself without them for the same reason (qemu/main.go).
var RuntimeEnv = []string{"GOMAXPROCS", "GODEBUG", "GOGC", "GOMEMLIMIT", "GOTRACEBACK"}

// DefaultPath is the guest's PATH: Debian's for an ordinary user. gmpos has no files to run,
// but programs look PATH up (exec.LookPath) and expect it set.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// isRuntimeEnv reports whether k is one of RuntimeEnv.
func isRuntimeEnv(k string) bool {
	for _, r := range RuntimeEnv {
		if k == r {
			return true
		}
	}
	return false
}

// DefaultEnv is the environment a guest starts with: PATH, HOME=/, the host's TERM, and the
// host's RuntimeEnv variables that are set. lookup is os.LookupEnv, or what stands in for it.
func DefaultEnv(lookup func(string) (string, bool)) []string {
	env := []string{"PATH=" + DefaultPath, "HOME=/"}
	if v, ok := lookup("TERM"); ok {
		env = append(env, "TERM="+v)
	}
	for _, k := range RuntimeEnv {
		if v, ok := lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// MergeEnv joins environment lists, a later KEY=VALUE replacing an earlier one of the same KEY
// where that one stood (so -e overrides a default without moving it).
func MergeEnv(lists ...[]string) []string {
	var out []string
	at := map[string]int{}
	for _, l := range lists {
		for _, kv := range l {
			k, _, _ := strings.Cut(kv, "=")
			if i, ok := at[k]; ok {
				out[i] = kv
				continue
			}
			at[k] = len(out)
			out = append(out, kv)
		}
	}
	return out
}

// ParseEnvVar reads one -e argument: KEY=VALUE, or KEY alone for the host's value of KEY
// (an error if the host has none).
func ParseEnvVar(s string, lookup func(string) (string, bool)) (string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		hv, set := lookup(k)
		if !set {
			return "", fmt.Errorf("-e %s: %s is not set here (give -e %s=VALUE)", s, k, k)
		}
		v = hv
	}
	if err := checkEnvKey(k); err != nil {
		return "", fmt.Errorf("-e %s: %v", s, err)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return "", fmt.Errorf("-e %s: the value contains a NUL byte", k)
	}
	return k + "=" + v, nil
}

// ParseEnvFile reads an -env-file: one KEY=VALUE per line, the value taken as it is (no quotes
// removed, as docker's --env-file); blank lines and lines starting with # are skipped. A line
// without '=' or with a bad key is an error naming the line.
func ParseEnvFile(name string, data []byte) ([]string, error) {
	var env []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want KEY=VALUE, got %q", name, n, line)
		}
		if err := checkEnvKey(k); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return nil, fmt.Errorf("%s:%d: the value contains a NUL byte", name, n)
		}
		env = append(env, k+"="+v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return env, nil
}

// checkEnvKey: a name Linux programs can look up — not empty, no '=' (it would end the name),
// no NUL.
func checkEnvKey(k string) error {
	if k == "" {
		return fmt.Errorf("empty variable name")
	}
	if strings.ContainsAny(k, "=\x00") {
		return fmt.Errorf("variable name %q contains '=' or NUL", k)
	}
	return nil
}

// BuildEnviron is the host's environment for `go build`, without RuntimeEnv.
func BuildEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !isRuntimeEnv(k) {
			env = append(env, kv)
		}
	}
	return env
}
