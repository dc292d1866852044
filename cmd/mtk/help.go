package main

import (
	"flag"
	"io"
	"slices"
	"strings"
)

// Help on the command line: --help (or -h) after a subcommand prints its lines of the usage text
// and its flags; after a command, its subcommands' lines.

// helpRequest is -h or --help on a command line: run prints the usage of the command name (the
// whole command when empty) and its flags, and exits 0.
type helpRequest struct{ name, flags string }

func (h helpRequest) Error() string { return "help requested" }

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// flagDefaults lists fs's flags with their defaults and meanings, as the flag package words them.
func flagDefaults(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if b.Len() == 0 {
		return "\nNo flags.\n"
	}
	return "\nFlags:\n" + b.String()
}

// usageOf is the lines of the usage text that describe command (say "mtk key create").
func usageOf(command string) string {
	var b strings.Builder
	for _, line := range strings.Split(usage, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), command); ok && (rest == "" || rest[0] == ' ') {
			b.WriteString("Usage: " + strings.TrimSpace(line) + "\n")
		}
	}
	if b.Len() == 0 {
		return "Usage: " + command + " [flags]\n"
	}
	return b.String()
}

// flagsOf is fs when sub is one of subs, else a set that is never parsed: a command whose
// subcommands share one flag set declares each flag for the subcommands that read it, so that
// each takes, and lists under --help, its own flags only.
func flagsOf(fs *flag.FlagSet, sub string, subs ...string) *flag.FlagSet {
	if slices.Contains(subs, sub) {
		return fs
	}
	return flag.NewFlagSet(sub, flag.ContinueOnError)
}
