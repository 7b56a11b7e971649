package fabric

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Look-alike names. Two classes named "roce" and "rоce" (with a Cyrillic о)
// print the same in every terminal, yet are two classes; a label value
// "gpu" written with a zero-width space matches no selector. Names that can
// deceive are refused: those holding invisible characters, those mixing
// scripts in one word, and names side by side (in one list) that differ
// only by characters that look alike. The table below is a small part of
// Unicode's confusables (UTS #39): the Cyrillic, Greek and fullwidth letters
// that look like Latin ones; names in ASCII alone are never confused.

// confusable maps a look-alike rune to the Latin letter it imitates.
var confusable = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ԛ': 'Q', 'Ԝ': 'W',
	// Greek
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Latin look-alikes outside ASCII
	'ı': 'i', 'ɑ': 'a', 'ℓ': 'l', 'ǀ': 'l', 'ɡ': 'g', 'ո': 'n', 'ս': 'u', 'օ': 'o',
}

// invisible reports whether r prints as nothing (format characters such as
// zero-width spaces and joiners, variation selectors, other default-ignorable
// code points).
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// skeleton is what s looks like: invisible runes dropped, look-alikes
// replaced by the letters they imitate, fullwidth forms by ASCII.
func skeleton(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case invisible(r):
			continue
		case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII
			r -= 0xFEE0
		default:
			if l, ok := confusable[r]; ok {
				r = l
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scriptTables are the scripts whose mixing in one name is refused.
var scriptTables = []struct {
	name string
	t    *unicode.RangeTable
}{
	{"Latin", unicode.Latin}, {"Cyrillic", unicode.Cyrillic}, {"Greek", unicode.Greek},
	{"Armenian", unicode.Armenian}, {"Cherokee", unicode.Cherokee}, {"Han", unicode.Han},
	{"Arabic", unicode.Arabic}, {"Hebrew", unicode.Hebrew},
}

// deceptive returns why name could deceive a reader by itself (an invisible
// character, mixed scripts), or "".
func deceptive(name string) string {
	scripts := map[string]bool{}
	for _, r := range name {
		if invisible(r) {
			return fmt.Sprintf("holds an invisible character (%U)", r)
		}
		if r < 0x80 {
			if unicode.IsLetter(r) {
				scripts["Latin"] = true
			}
			continue
		}
		for _, s := range scriptTables {
			if unicode.Is(s.t, r) {
				scripts[s.name] = true
				break
			}
		}
	}
	if len(scripts) > 1 {
		names := make([]string, 0, len(scripts))
		for s := range scripts {
			names = append(names, s)
		}
		sort.Slice(names, func(i, j int) bool { return scriptOrder(names[i]) < scriptOrder(names[j]) })
		return "mixes scripts (" + strings.Join(names, ", ") + "); a look-alike of another name?"
	}
	return ""
}

func scriptOrder(name string) int {
	for i, s := range scriptTables {
		if s.name == name {
			return i
		}
	}
	return len(scriptTables)
}

// lookalikes finds names side by side that look alike: seen maps a
// skeleton to the first name with it.
type lookalikes map[string]lookalike

type lookalike struct {
	name, where string
}

// check records name (found at where) and returns the earlier name it
// looks like, if any. Names in ASCII alone are compared as written.
func (l lookalikes) check(name, where string) (lookalike, bool) {
	ascii := true
	for i := 0; i < len(name); i++ {
		ascii = ascii && name[i] < 0x80
	}
	sk := name
	if !ascii {
		sk = skeleton(name)
	}
	if prev, ok := l[sk]; ok && prev.name != name {
		return prev, true
	}
	if _, ok := l[sk]; !ok {
		l[sk] = lookalike{name, where}
	}
	return lookalike{}, false
}
