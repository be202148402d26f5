// Tests of the private apt configuration (no network) and of Fetch itself (network).
// SPDX-License-Identifier: BSD-3-Clause

package debfetch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAptConfig(t *testing.T) {
	c := aptConfig("/cache", "bookworm", "non-free-firmware", false)
	if want := "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm non-free-firmware\n"; c.sourcesList != want {
		t.Errorf("sources.list = %q, want %q", c.sourcesList, want)
	}
	for _, clear := range []string{"APT::Update::Post-Invoke-Success", "APT::Default-Release"} {
		if !strings.Contains(c.aptConf, "#clear "+clear+";\n") {
			t.Errorf("apt.conf does not clear %s:\n%s", clear, c.aptConf)
		}
	}
	opts := map[string]string{}
	for i := 0; i < len(c.options); i += 2 {
		flag, val := c.options[i], c.options[i+1]
		if flag == "-c" {
			opts["-c"] = val
			continue
		}
		k, v, ok := strings.Cut(val, "=")
		if flag != "-o" || !ok {
			t.Fatalf("option %q %q: want -o NAME=VALUE or -c FILE", flag, val)
		}
		opts[k] = v
	}
	for k, want := range map[string]string{
		"-c":                         "/cache/apt/apt.conf",
		"Dir::Etc::SourceList":       "/cache/apt/sources.list",
		"Dir::Etc::SourceParts":      "/cache/apt/empty.d",
		"Dir::Etc::PreferencesParts": "/cache/apt/empty.d",
		"Dir::State":                 "/cache/apt/state",
		"Dir::State::Lists":          "/cache/apt/state/lists",
		"Dir::State::status":         "/cache/apt/state/status",
		"Dir::Cache":                 "/cache/apt/cache",
		"Acquire::Languages":         "none",
	} {
		if got := opts[k]; got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	// Every path apt is given is inside the cache directory: nothing of the host's is written.
	for k, v := range opts {
		if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "/cache/") {
			t.Errorf("%s = %s: outside the cache directory", k, v)
		}
	}
	if _, ok := opts["APT::Sandbox::User"]; ok {
		t.Errorf("not root, but APT::Sandbox::User is set")
	}
	if c.debs != "/cache/debs" {
		t.Errorf("debs = %s, want /cache/debs", c.debs)
	}
	// The options come first, then apt-get's command.
	if got := c.command("download", "raspi-firmware"); !slices.Equal(got[len(got)-2:], []string{"download", "raspi-firmware"}) || got[0] != "-c" {
		t.Errorf("command = %q", got)
	}

	root := aptConfig("/cache", "bookworm", "main", true)
	if !slices.Contains(root.options, "APT::Sandbox::User=root") {
		t.Errorf("as root, want APT::Sandbox::User=root in %q", root.options)
	}
}

func TestAptConfigCreate(t *testing.T) {
	c := aptConfig(t.TempDir(), "bookworm", "main", false)
	if err := c.create(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"state/lists/partial", "cache/archives/partial", "empty.d"} {
		if fi, err := os.Stat(filepath.Join(c.dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: not a directory (%v)", d, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, "sources.list")); err != nil || string(b) != c.sourcesList {
		t.Errorf("sources.list = %q, %v", b, err)
	}
}

func TestFetchBadNames(t *testing.T) {
	for _, args := range [][3]string{
		{"bookworm", "main", "x"},                       // one letter: not a Debian package name
		{"bookworm", "main", "Raspi-firmware"},          // capital
		{"bookworm main", "contrib", "hello"},           // would add a component to sources.list
		{"bookworm", "main", "hello; rm -rf /"},         // not a name at all
		{"bookworm", "non-free-firmware", "../etc"},     // not a name, and would escape cacheDir
		{"", "non-free-firmware", "raspi-firmware"},     // no suite
		{"bookworm", "", "raspi-firmware"},              // no component
		{"bookworm", "[trusted=yes]", "raspi-firmware"}, // an option, not a component
	} {
		if _, err := Fetch(t.TempDir(), args[0], args[1], args[2], nil); err == nil || !strings.Contains(err.Error(), "want a Debian suite") {
			t.Errorf("Fetch(%q) = %v, want a name error", args, err)
		}
	}
}

func TestFetchCached(t *testing.T) {
	// A stamped tree is answered without apt: this works with PATH empty.
	cache := t.TempDir()
	root := filepath.Join(cache, "root-hello")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root+".stamp", []byte("bookworm main\nhello_1_all.deb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "")
	got, err := Fetch(cache, "bookworm", "main", "hello", nil)
	if err != nil || got != root {
		t.Fatalf("Fetch = %s, %v; want %s from the cache", got, err, root)
	}
	// From another suite it is not the same tree: Fetch needs apt, which is missing here.
	if _, err := Fetch(cache, "trixie", "main", "hello", nil); err == nil || !strings.Contains(err.Error(), "apt-get and dpkg-deb") {
		t.Errorf("Fetch(trixie) = %v, want the missing-tools error", err)
	}
	// Without a stamp the tree is incomplete.
	os.Remove(root + ".stamp")
	if _, err := Fetch(cache, "bookworm", "main", "hello", nil); err == nil || !strings.Contains(err.Error(), "apt-get and dpkg-deb") {
		t.Errorf("Fetch without a stamp = %v, want the missing-tools error", err)
	}
}

func TestRaspiFirmwareDir(t *testing.T) {
	root := t.TempDir()
	if _, err := RaspiFirmwareDir(root); err == nil {
		t.Errorf("empty tree: want an error")
	}
	dir := filepath.Join(root, "usr/lib/raspi-firmware")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range RaspiFirmwareFiles[1:] {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RaspiFirmwareDir(root); err == nil || !strings.Contains(err.Error(), "bootcode.bin") {
		t.Errorf("without bootcode.bin: %v, want it named", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bootcode.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := RaspiFirmwareDir(root); err != nil || got != dir {
		t.Errorf("RaspiFirmwareDir = %s, %v; want %s", got, err, dir)
	}

	// Somewhere else: found through start4.elf.
	other := t.TempDir()
	moved := filepath.Join(other, "usr/share/rpi-boot")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if got, err := RaspiFirmwareDir(other); err != nil || got != moved {
		t.Errorf("RaspiFirmwareDir = %s, %v; want %s", got, err, moved)
	}
}

// TestFetchRaspiFirmware downloads the real package (about 5 MB) from deb.debian.org.
func TestFetchRaspiFirmware(t *testing.T) {
	switch {
	case os.Getenv("GMPOS_OFFLINE") == "1":
		t.Skip("GMPOS_OFFLINE=1: no network")
	case testing.Short():
		t.Skip("-short: downloads from deb.debian.org")
	}
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: not a Debian host", tool)
		}
	}
	if _, err := os.Stat(Keyring); err != nil {
		t.Skipf("%s missing (apt-get install debian-archive-keyring)", Keyring)
	}

	cache := t.TempDir()
	var logged []string
	root, err := Fetch(cache, RaspiSuite, RaspiComponent, RaspiPackage, func(s string) { logged = append(logged, s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("steps: %q", logged)
	dir, err := RaspiFirmwareDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "usr/lib/raspi-firmware"); dir != want {
		t.Errorf("firmware in %s, want %s", dir, want)
	}
	for _, f := range RaspiFirmwareFiles {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Size() < 4096 {
			t.Errorf("%s: %v (want a file of firmware size)", f, err)
		}
	}

	// The second call is answered from the cache: no apt-get (PATH is empty) and no log.
	t.Setenv("PATH", "")
	logged = nil
	again, err := Fetch(cache, RaspiSuite, RaspiComponent, RaspiPackage, func(s string) { logged = append(logged, s) })
	if err != nil || again != root || len(logged) != 0 {
		t.Errorf("second Fetch = %s, %v, log %q; want %s from the cache", again, err, logged, root)
	}
}
