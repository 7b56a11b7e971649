// Package all builds the registry of every switch driver fabricctl ships.
//
//	reg := all.Registry()
//	d, err := reg.Driver(sw.Platform) // unknown → error listing the valid names
//
// Registration is explicit, one Register call per driver package, never
// init(). Registry returns a new value each call; once returned it is safe for
// concurrent reads.
package all
