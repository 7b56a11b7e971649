// Command hostile measures fabricctl on issue 13's hostile documents; see
// main.go and bench/hostile.sh.
package main
