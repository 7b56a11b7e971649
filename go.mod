module github.com/fabricctl/fabricctl

go 1.26.8

require (
	github.com/Mellanox/rdmamap v1.1.0
	github.com/google/go-cmp v0.7.0
	github.com/scrapli/scrapligo v1.4.3
	github.com/spf13/cobra v1.10.2
	github.com/vishvananda/netlink v1.3.1
	github.com/vishvananda/netns v0.0.5
	golang.org/x/crypto v0.59.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/creack/pty v1.1.23 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/sirikothe/gotextfsm v1.0.1-0.20200816110946-6aa2cfd355e4 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
