package main

import (
	"flag"
	"fmt"

	"github.com/dfopt/dfopt/oracle"
	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// tierFlag declares the -tier flag of the commands that optimize plan
// files.
func tierFlag(fs *flag.FlagSet) *string {
	return fs.String("tier", "", "optimizer preset: bounded or standard (default: the file's \"tier\", else standard)")
}

// checkTier validates a -tier value ("" keeps the file's).
func checkTier(tier string) error {
	if tier == "" {
		return nil
	}
	if _, err := rules.ParseTier(tier); err != nil {
		return fmt.Errorf("-tier: %w", err)
	}
	return nil
}

// fileFlags are the optimizer flags a command runs a plan file with: the
// tier (the -tier flag, else the file's "tier", else standard), the file's
// "flags" on top, and Verify only when the file asks for it.
func fileFlags(doc *planjson.Document, tier string) (rules.Flags, error) {
	if tier != "" {
		doc.Tier = tier
	}
	flags, err := oracle.DocumentFlags(doc)
	if err != nil {
		return rules.Flags{}, err
	}
	if _, set := doc.Flags[rules.FlagVerify]; !set {
		flags.Verify = false
	}
	return flags, nil
}
