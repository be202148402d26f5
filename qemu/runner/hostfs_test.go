// Tests of -fs's argument.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"strings"
	"testing"
)

func TestParseFS(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"file": "x", "sub/f": "y", "a:b/f": "z"})
	t.Chdir(dir)
	for _, tc := range []struct{ arg, host, guest, err string }{
		{arg: "sub", host: dir + "/sub", guest: dir + "/sub"},
		{arg: dir + "/sub/", host: dir + "/sub", guest: dir + "/sub"},
		{arg: "sub:/srv/data/", host: dir + "/sub", guest: "/srv/data"},
		{arg: "sub:/", host: dir + "/sub", guest: "/"},
		{arg: "a:b", host: dir + "/a:b", guest: dir + "/a:b"},
		{arg: "a:b:/g", host: dir + "/a:b", guest: "/g"},
		{arg: "missing", err: "does not exist"},
		{arg: "missing:/g", err: "does not exist"},
		{arg: "file", err: "not a directory"},
		{arg: "sub:rel", err: "absolute"},
		{arg: ":/g", err: "no host directory"},
		{arg: "", err: "no host directory"},
	} {
		m, err := ParseFS(tc.arg)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFS(%q) = %v, %v; want an error with %q", tc.arg, m, err, tc.err)
			}
		case err != nil || m != (FSMount{tc.host, tc.guest}):
			t.Errorf("ParseFS(%q) = %v, %v; want %s:%s", tc.arg, m, err, tc.host, tc.guest)
		}
	}
}
