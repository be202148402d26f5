// Tests for the command line of the runner command.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	for _, tt := range []struct {
		in, pkg, args []string
	}{
		{[]string{"./demo"}, []string{"./demo"}, nil},
		{[]string{"./demo", "--", "-n", "3"}, []string{"./demo"}, []string{"-n", "3"}},
		{[]string{"a.go", "b.go", "--", "x", "--", "y"}, []string{"a.go", "b.go"}, []string{"x", "--", "y"}},
		{[]string{"./demo", "--"}, []string{"./demo"}, []string{}},
	} {
		pkg, args := splitArgs(tt.in)
		if !reflect.DeepEqual(pkg, tt.pkg) || len(args) != len(tt.args) || (len(args) > 0 && !reflect.DeepEqual(args, tt.args)) {
			t.Errorf("splitArgs(%q) = %q, %q; want %q, %q", tt.in, pkg, args, tt.pkg, tt.args)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, argv := range [][]string{
		{},                        // no package
		{"-smp", "x", "./demo"},   // bad flag value
		{"-nosuchflag", "./demo"}, // unknown flag
		{"-fs", "/no/such/dir", "./demo"},
		{"-fs", "main.go", "./demo"},    // not a directory
		{"-fs", ".:relative", "./demo"}, // GUESTDIR not absolute
	} {
		if code := run(argv); code != 125 {
			t.Errorf("run(%q) = %d, want 125", argv, code)
		}
	}
}

// TestRunArchFlagErrors: -arch and -machine that contradict each other, or name nothing the
// runner knows, stop before the build.
func TestRunArchFlagErrors(t *testing.T) {
	for _, argv := range [][]string{
		{"-arch", "arm64", "-machine", "q35", "./demo"},
		{"-arch", "amd64", "-machine", "virt", "./demo"},
		{"-arch", "riscv64", "./demo"},
		{"-machine", "virt,gic-version=9", "./demo"},
	} {
		if code := run(argv); code != 125 {
			t.Errorf("run(%q) = %d, want 125", argv, code)
		}
	}
	if code := build([]string{"-arch", "riscv64", "./demo"}); code != 125 {
		t.Errorf("build -arch riscv64 = %d, want 125", code)
	}
}
