package oracle

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/dfopt/dfopt/plan/planjson"
	"github.com/dfopt/dfopt/rules"
)

// DocumentFlags returns the flags a plan file asks for: its "flags" object
// applied to its "tier"'s preset (rules.Registry.TierFlags; no tier: the
// default, standard), with Verify on unless the file sets "verify" itself.
// An unknown flag or tier name is an error.
func DocumentFlags(doc *planjson.Document) (rules.Flags, error) {
	return DocumentFlagsFor(doc, nil)
}

// DocumentFlagsFor is DocumentFlags for a registry holding a host's rules
// (nil: rules.Builtin()): their flags are plan-file flags too.
func DocumentFlagsFor(doc *planjson.Document, reg *rules.Registry) (rules.Flags, error) {
	if reg == nil {
		reg = rules.Builtin()
	}
	flags, err := reg.FlagsFromMap(doc.Flags)
	if err != nil {
		return rules.Flags{}, fmt.Errorf("flags: %w", err)
	}
	if doc.Tier != "" {
		// The tier's preset, then the file's own flags on top of it.
		tier, err := rules.ParseTier(doc.Tier)
		if err != nil {
			return rules.Flags{}, fmt.Errorf("tier: %w", err)
		}
		flags = reg.TierFlags(tier)
		for _, name := range slices.Sorted(maps.Keys(doc.Flags)) {
			if err := flags.Set(name, doc.Flags[name]); err != nil {
				return rules.Flags{}, fmt.Errorf("flags: %w", err)
			}
		}
	}
	if _, set := doc.Flags[rules.FlagVerify]; !set {
		flags.Verify = true
	}
	return WithEvaluator(flags), nil
}

// CheckDocument checks a decoded plan file: its plan four ways under its
// flags (DocumentFlags), and its "expect" object (every listed counter
// exactly; the error kind, or success for "error": null, of the unoptimized
// outcome). The error is for a file that cannot be checked at all (an
// unknown flag); divergences and unmet expectations are in the report.
func CheckDocument(ctx context.Context, doc *planjson.Document) (*Report, error) {
	return CheckDocumentWith(ctx, doc, nil)
}

// CheckDocumentWith is CheckDocument with a host executor (nil: exec).
func CheckDocumentWith(ctx context.Context, doc *planjson.Document, x Executor) (*Report, error) {
	if doc == nil {
		return nil, fmt.Errorf("check: no document")
	}
	flags, err := DocumentFlags(doc)
	if err != nil {
		return nil, err
	}
	return Check(ctx, Case{Plan: doc.Plan, Flags: &flags, Expect: doc.Expect, Executor: x}), nil
}
