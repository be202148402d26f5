// Whether a program imports net: what -net auto and the network stack's link depend on.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ImportsNet reports whether t's program imports package net, directly or through other
// packages, and by which chain of imports (the program first, "net" last). It runs
// `go list -e -deps` in the same directory and environment as the build (goCommand), without
// the overlay: the question is about the program, not the kernel. The package graph is
// cached by the go command, so this costs a few tens of milliseconds, much less than the
// build. With -e a broken program is listed as far as it goes instead of failing here: the
// build that follows reports its errors properly.
func ImportsNet(t *Target, spec BuildSpec) (bool, []string, error) {
	args := []string{"list", "-e", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}
	if t.Kind == KindTest {
		args = append(args[:3], append([]string{"-test"}, args[3:]...)...)
	}
	cmd, _, err := goCommand(t, spec, args)
	if err != nil {
		return false, nil, err
	}
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			msg = string(ee.Stderr)
		}
		return false, nil, fmt.Errorf("go list (deciding whether the program imports net) failed: %s", strings.TrimSpace(msg))
	}
	chain := importChain(string(out), "net")
	return chain != nil, chain, nil
}

// importChain finds, in `go list -deps` output whose lines are "PKG IMPORT...", a shortest
// chain of imports from the root package to target. go list prints a package after all it
// imports, so the root is the last line. nil: target is not imported.
func importChain(list, target string) []string {
	imports := map[string][]string{}
	root := ""
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		imports[f[0]] = f[1:]
		root = f[0]
	}
	if root == "" {
		return nil
	}
	// Breadth first, remembering where each package was reached from.
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == target {
			var chain []string
			for ; p != ""; p = from[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, q := range imports[p] {
			if _, ok := from[q]; !ok {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
