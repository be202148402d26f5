// The private apt configuration: sources.list, apt.conf and the apt-get options that point apt
// at them.
// SPDX-License-Identifier: BSD-3-Clause

package debfetch

import (
	"os"
	"path/filepath"
)

// aptSetup is apt's configuration for one cache directory. Everything apt writes goes below
// cacheDir/apt (lists, package cache, status) or into debs (the downloaded .deb files).
type aptSetup struct {
	dir         string // cacheDir/apt
	debs        string // where apt-get download leaves the .deb
	sourcesList string // contents of dir/sources.list
	aptConf     string // contents of dir/apt.conf
	options     []string
}

// aptConfig is the configuration for downloading from Mirror's suite and component. asRoot:
// apt is running as root (see the sandbox option below).
func aptConfig(cacheDir, suite, component string, asRoot bool) aptSetup {
	dir := filepath.Join(cacheDir, "apt")
	state := filepath.Join(dir, "state")
	empty := filepath.Join(dir, "empty.d")
	c := aptSetup{
		dir:  dir,
		debs: filepath.Join(cacheDir, "debs"),
		// signed-by: these keys, and only these, may sign this source's Release file.
		sourcesList: "deb [signed-by=" + Keyring + "] " + Mirror + " " + suite + " " + component + "\n",
		// Settings that must be removed rather than set, which -o cannot do. The hooks run
		// after every `apt-get update` (PackageKit's, appstream's refresh of the host's
		// catalogue) are about the host's package lists, not ours. A host's
		// APT::Default-Release naming a suite missing from our one-line sources.list would make
		// every apt-get command fail.
		aptConf: "#clear APT::Update::Pre-Invoke;\n" +
			"#clear APT::Update::Post-Invoke;\n" +
			"#clear APT::Update::Post-Invoke-Success;\n" +
			"#clear APT::Default-Release;\n",
	}
	c.options = []string{
		// Read after the host's apt.conf and apt.conf.d, so the #clear lines win.
		"-c", filepath.Join(dir, "apt.conf"),
		// Our sources only; an empty directory rather than a missing one, which apt warns about.
		"-o", "Dir::Etc::SourceList=" + filepath.Join(dir, "sources.list"),
		"-o", "Dir::Etc::SourceParts=" + empty,
		// The host's pinning could prefer another version, or none.
		"-o", "Dir::Etc::Preferences=" + filepath.Join(empty, "preferences"),
		"-o", "Dir::Etc::PreferencesParts=" + empty,
		// Lists, the binary caches and the downloaded archives: ours, writable without root.
		// apt's lock for them is the file lists/lock, so it needs no Debug::NoLocking: neither
		// update nor download takes the host's locks in /var/lib/dpkg or /var/lib/apt (checked
		// as root with all four held by another process).
		"-o", "Dir::State=" + state,
		"-o", "Dir::State::Lists=" + filepath.Join(state, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(dir, "cache"),
		// An empty dpkg status: apt-get download does not care what the host has installed,
		// and this way it does not even read it.
		"-o", "Dir::State::status=" + filepath.Join(state, "status"),
		// Nothing but the Packages index: no translated descriptions, and no appstream
		// metadata (DEP-11) even if the host's apt.conf.d asks for it.
		"-o", "Acquire::Languages=none",
		"-o", "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false",
	}
	if asRoot {
		// As root, apt downloads as the unprivileged user _apt, which cannot enter a private
		// cache directory (t.TempDir and ~/.cache are mode 0700): apt would fall back to
		// downloading as root anyway, with a warning per file. Say so up front. Not as root,
		// apt downloads as the invoking user and needs no sandbox option.
		c.options = append(c.options, "-o", "APT::Sandbox::User=root")
	}
	return c
}

// command is the argument list for apt-get: the options, then the command and its operands.
func (c aptSetup) command(args ...string) []string {
	return append(append([]string(nil), c.options...), args...)
}

// create makes the directories apt expects to exist (it creates none of them itself) and
// writes the configuration files.
func (c aptSetup) create() error {
	state := filepath.Join(c.dir, "state")
	for _, d := range []string{
		filepath.Join(state, "lists", "partial"),
		filepath.Join(c.dir, "cache", "archives", "partial"),
		filepath.Join(c.dir, "empty.d"),
		c.debs,
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for name, data := range map[string]string{
		filepath.Join(c.dir, "sources.list"): c.sourcesList,
		filepath.Join(c.dir, "apt.conf"):     c.aptConf,
		filepath.Join(state, "status"):       "",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}
