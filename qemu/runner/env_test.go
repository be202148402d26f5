// Tests of the guest environment's assembly.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func lookupIn(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaultEnv(t *testing.T) {
	got := DefaultEnv(lookupIn(map[string]string{"TERM": "xterm", "GODEBUG": "gctrace=1", "GOGC": "off", "HOME": "/root", "USER": "me"}))
	want := []string{"PATH=" + DefaultPath, "HOME=/", "TERM=xterm", "GODEBUG=gctrace=1", "GOGC=off"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultEnv = %q, want %q", got, want)
	}
	if got := DefaultEnv(lookupIn(nil)); len(got) != 2 {
		t.Errorf("no host variables: %q, want PATH and HOME only", got)
	}
}

func TestMergeEnv(t *testing.T) {
	got := MergeEnv([]string{"A=1", "B=2"}, []string{"C=3", "A=4"}, []string{"B=", "A=5"})
	if want := []string{"A=5", "B=", "C=3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("MergeEnv = %q, want %q", got, want)
	}
}

func TestParseEnvVar(t *testing.T) {
	host := lookupIn(map[string]string{"HOSTY": "from host", "EMPTY": ""})
	for in, want := range map[string]string{"K=V": "K=V", "K=a=b": "K=a=b", "K=": "K=", "HOSTY": "HOSTY=from host", "EMPTY": "EMPTY=", "K= spaced ": "K= spaced "} {
		if got, err := ParseEnvVar(in, host); err != nil || got != want {
			t.Errorf("ParseEnvVar(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"=V", "UNSET", "", "K=a\x00b", "K\x00=v"} {
		if got, err := ParseEnvVar(in, host); err == nil {
			t.Errorf("ParseEnvVar(%q) = %q, want an error", in, got)
		}
	}
}

func TestParseEnvFile(t *testing.T) {
	got, err := ParseEnvFile("f", []byte("# comment\nA=1\n\n  \nB=two words \r\nC=\"quoted\"\nD==x\n"))
	if want := []string{"A=1", "B=two words ", "C=\"quoted\"", "D==x"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseEnvFile = %q, %v; want %q", got, err, want)
	}
	for in, where := range map[string]string{"A=1\nnoequals\n": "f:2:", "=v\n": "f:1:", "A=1\nB=x\x00\n": "f:2:"} {
		if _, err := ParseEnvFile("f", []byte(in)); err == nil || !strings.HasPrefix(err.Error(), where) {
			t.Errorf("ParseEnvFile(%q) error %v, want one starting %q", in, err, where)
		}
	}
}

func TestArgsModule(t *testing.T) {
	m, err := ArgsModule([]string{"prog", "", "a b"}, []string{"K=V"})
	want := "GMPOSARG\x03\x00\x00\x00\x01\x00\x00\x00prog\x00\x00a b\x00K=V\x00"
	if err != nil || string(m) != want {
		t.Fatalf("ArgsModule = %q, %v; want %q", m, err, want)
	}
	for _, c := range []struct {
		argv, envp []string
		why        string
	}{
		{nil, nil, "no argv[0]"},
		{[]string{"p", "a\x00b"}, nil, "argument 1 contains a NUL"},
		{[]string{"p", strings.Repeat("x", MaxArgStrlen)}, nil, "MAX_ARG_STRLEN"},
		{[]string{"p"}, []string{"BIG=" + strings.Repeat("x", MaxArgStrlen)}, `environment variable "BIG" is`},
		{append([]string{"p"}, manyStrings(20, 120<<10)...), nil, "E2BIG"},
	} {
		if _, err := ArgsModule(c.argv, c.envp); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%d strings: %v, want an error saying %q", len(c.argv)+len(c.envp), err, c.why)
		}
	}
	if _, err := ArgsModule(append([]string{"p"}, manyStrings(1000, 1000)...), nil); err != nil {
		t.Errorf("1000 arguments of 1000 bytes: %v", err)
	}
}

func manyStrings(n, size int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = strings.Repeat("y", size)
	}
	return s
}

func TestBuildEnvironSheds(t *testing.T) {
	t.Setenv("GODEBUG", "gctrace=1")
	t.Setenv("GOMEMLIMIT", "1GiB")
	t.Setenv("GMPOS_TEST_KEEP", "yes")
	env := strings.Join(BuildEnviron(), "\n")
	if strings.Contains(env, "GODEBUG=") || strings.Contains(env, "GOMEMLIMIT=") || !strings.Contains(env, "GMPOS_TEST_KEEP=yes") {
		t.Errorf("BuildEnviron kept a runtime variable or lost another one")
	}
	if len(BuildEnviron()) != len(os.Environ())-2 {
		t.Errorf("BuildEnviron: %d of %d", len(BuildEnviron()), len(os.Environ()))
	}
}
