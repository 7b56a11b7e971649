package remote

import (
	"bufio"
	"os"
	"path"
	"strconv"
	"strings"
)

// applySSHConfig honours the cheap part of ~/.ssh/config: for the first Host
// block whose pattern matches cfg.Address, it fills HostName, Port, User and
// IdentityFile where the fabric left them empty. Match blocks, Include and
// tokens are not interpreted.
func applySSHConfig(cfg *Config) {
	file := cfg.SSHConfigFile
	if file == "" {
		file = "~/.ssh/config"
	}
	f, err := os.Open(expandHome(file))
	if err != nil {
		return
	}
	defer f.Close()
	opts := parseSSHConfig(bufio.NewScanner(f), cfg.Address)
	if v := opts["hostname"]; v != "" {
		cfg.Address = v
	}
	if v, err := strconv.Atoi(opts["port"]); err == nil && cfg.Port == 0 {
		cfg.Port = v
	}
	if v := opts["user"]; v != "" && cfg.User == "" {
		cfg.User = v
	}
	if v := opts["identityfile"]; v != "" && cfg.IdentityFile == "" {
		cfg.IdentityFile = v
	}
}

// parseSSHConfig returns the first value of each option that applies to host
// (OpenSSH semantics: first obtained value wins).
func parseSSHConfig(sc *bufio.Scanner, host string) map[string]string {
	out := map[string]string{}
	active := true // options before any Host line apply to all hosts
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		if !ok {
			key, val, ok = strings.Cut(line, "=")
		}
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(val), "=")), `"`)
		switch key {
		case "host":
			active = hostMatches(strings.Fields(val), host)
		case "match":
			active = false
		default:
			if active {
				if _, seen := out[key]; !seen {
					out[key] = val
				}
			}
		}
	}
	return out
}

func hostMatches(patterns []string, host string) bool {
	matched := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		if ok, _ := path.Match(p, host); ok {
			if neg {
				return false
			}
			matched = true
		}
	}
	return matched
}
