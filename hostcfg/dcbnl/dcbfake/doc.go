// Package dcbfake is a fake Linux DCB kernel for tests (doc to follow).
package dcbfake
