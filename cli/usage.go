package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ParseFlags parses args with fl, whose name is the command's ("status",
// "token", ...). -h prints fl.Usage and returns flag.ErrHelp; any other
// mistake returns a one-line error naming it (see Usagef) and prints
// nothing, where the flag package would print the whole help.
func ParseFlags(fl *flag.FlagSet, args []string) error {
	usage, out := fl.Usage, fl.Output()
	fl.Usage = func() {}
	fl.SetOutput(io.Discard)
	err := fl.Parse(args)
	fl.Usage = usage
	fl.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	case err != nil:
		return Usagef(fl.Name(), "%v", err)
	}
	return nil
}

// Usagef is the error of a command given wrong arguments: one line with
// what is wrong and where the help is.
func Usagef(cmd, format string, args ...any) error {
	return fmt.Errorf("%s: %s (see \"hybridsearch %s -h\")", cmd, fmt.Sprintf(format, args...), cmd)
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
