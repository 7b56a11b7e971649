package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// DevInfo is the output of ibv_devinfo, with or without -v.
type DevInfo struct {
	Devices []HCA `json:"devices"`
	// NoDevices is set when ibv_devinfo found no device to list: "No IB
	// devices found" (none at all), "IB device 'x' wasn't found" (not the one
	// asked for with -d) or "Failed to get IB devices list: …" (libibverbs
	// could not enumerate). NoDevicesLine is that line.
	NoDevices     bool   `json:"noDevices,omitempty"`
	NoDevicesLine string `json:"noDevicesLine,omitempty"`
	// Errors are ibv_devinfo's own lines about a device it enumerated but
	// could not read ("Failed to open device", "Failed to query port 1
	// props"), located by line: that device is missing from the listing.
	Errors []string `json:"errors,omitempty"`
	// LibWarnings are libibverbs' own warnings ("libibverbs: Warning: no
	// userspace device-specific driver found for …"): why a device is missing.
	LibWarnings []string `json:"libWarnings,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	NumberErrors
}

// HCA is one "hca_id:" block.
type HCA struct {
	ID           string `json:"hcaID"`                  // hca_id
	Transport    string `json:"transport,omitempty"`    // "InfiniBand (0)" (RoCE devices say InfiniBand too)
	FWVer        string `json:"fwVer,omitempty"`        // fw_ver
	NodeGUID     string `json:"nodeGUID,omitempty"`     // node_guid
	SysImageGUID string `json:"sysImageGUID,omitempty"` // sys_image_guid
	VendorID     string `json:"vendorID,omitempty"`     // vendor_id
	VendorPartID int    `json:"vendorPartID,omitempty"` // vendor_part_id: 4129 = ConnectX-7
	HWVer        string `json:"hwVer,omitempty"`        // hw_ver
	BoardID      string `json:"boardID,omitempty"`      // board_id
	PhysPortCnt  int    `json:"physPortCnt,omitempty"`  // phys_port_cnt
	// Attrs holds the other device attributes ibv_devinfo -v prints (max_qp, …).
	Attrs map[string]string `json:"attrs,omitempty"`
	// Flags holds the flag lists printed under *_flags attributes.
	Flags map[string][]string `json:"flags,omitempty"`
	Ports []DevInfoPort       `json:"ports,omitempty"`
	// Partial is set when the capture began inside this block: ID is unknown.
	Partial bool `json:"partial,omitempty"`
}

// DevInfoPort is one "port:" block of an HCA.
type DevInfoPort struct {
	Port      int    `json:"port"`                // 0 when the capture began inside the block
	State     string `json:"state,omitempty"`     // state: PORT_ACTIVE, PORT_DOWN, PORT_INIT, …
	MaxMTU    int    `json:"maxMTU,omitempty"`    // max_mtu, bytes
	ActiveMTU int    `json:"activeMTU,omitempty"` // active_mtu, bytes
	SMLID     int    `json:"smLID,omitempty"`     // sm_lid
	PortLID   int    `json:"portLID,omitempty"`   // port_lid (65535 = unassigned)
	LMC       string `json:"lmc,omitempty"`       // port_lmc
	LinkLayer string `json:"linkLayer,omitempty"` // link_layer: InfiniBand or Ethernet
	// ActiveWidth, ActiveSpeed and PhysState appear with -v: "4X (2)", "25.0 Gbps (32)", "LINK_UP (5)".
	ActiveWidth string            `json:"activeWidth,omitempty"`
	ActiveSpeed string            `json:"activeSpeed,omitempty"`
	PhysState   string            `json:"physState,omitempty"`
	GIDs        []IndexedGID      `json:"gids,omitempty"` // GID[ i]: with -v
	Attrs       map[string]string `json:"attrs,omitempty"`
}

// IndexedGID is one entry of a GID table.
type IndexedGID struct {
	Index int    `json:"index"`
	GID   string `json:"gid"`
	Type  string `json:"type,omitempty"` // "RoCE v2", "RoCE v1", "IB" when ibv_devinfo says
}

// The messages below are ibv_devinfo's own (rdma-core
// libibverbs/examples/devinfo.c): main() prints the first family when it has
// no device to list, print_hca_cap() the second when it cannot read one it
// enumerated (and goes on with the next device).
var (
	// noDevicesRe: no device at all, not the one named with -d, or no list.
	noDevicesRe = regexp.MustCompile(`^(?:No IB devices? found|IB device '[^']*' wasn't found|Failed to get IB devices? list\b)`)
	// devErrorRe: a device ibv_devinfo enumerated but could not read.
	devErrorRe = regexp.MustCompile(`^(?:Failed to (?:open device|query device props|query port \d+ props|query gid to port \d+, index \d+|close device)|Invalid port requested for device)`)
	// libWarnRe: libibverbs' warnings, printed before any output (a provider
	// missing, a uverbs device without a driver, no config directory).
	libWarnRe = regexp.MustCompile(`^libibverbs: Warning: `)
	gidAttrRe = regexp.MustCompile(`^GID\[\s*(\d+)\]:\s*([0-9a-fA-F:.]+)(?:,\s*(.+))?`)
	attrKeyRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_ ]*$`)
	// portKeys are the attributes ibv_devinfo prints inside a port block.
	portKeys = map[string]bool{
		"state": true, "max_mtu": true, "active_mtu": true, "sm_lid": true, "port_lid": true,
		"port_lmc": true, "link_layer": true, "max_msg_sz": true, "port_cap_flags": true,
		"port_cap_flags2": true, "max_vl_num": true, "bad_pkey_cntr": true, "qkey_viol_cntr": true,
		"sm_sl": true, "pkey_tbl_len": true, "gid_tbl_len": true, "subnet_timeout": true,
		"init_type_reply": true, "active_width": true, "active_speed": true, "phys_state": true,
	}
)

// leadingInt reads the number at the start of line n's "4096 (5)" or
// "1691"; one that is numeric but no index (1e23, negative) is recorded as
// a bad number, and ok is false for it and for text.
func (p *devinfoParser) leadingInt(n int, key, s string) (int, bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, false
	}
	return p.out.index(n, key, f[0])
}

// enumName reads "PORT_ACTIVE (4)" as "PORT_ACTIVE".
func enumName(s string) string {
	name, _, _ := strings.Cut(s, " (")
	return strings.TrimSpace(name)
}

// devinfoParser carries the state of one ParseDevInfo call.
type devinfoParser struct {
	out        DevInfo
	dev        *HCA
	port       *DevInfoPort
	flagKey    string // the *_flags attribute whose list is being read
	flagIndent int
	content    bool
}

// ParseDevInfo reads the output of ibv_devinfo or ibv_devinfo -v. A capture
// that begins inside a device block yields a Partial device first; markdown
// emphasis ("**") in front of a line is ignored. Numbers that do not parse
// become located warnings.
func ParseDevInfo(r io.Reader) (*DevInfo, error) {
	p := &devinfoParser{}
	if err := scan(r, p.line); err != nil {
		return nil, fmt.Errorf("parsing ibv_devinfo output: %w", err)
	}
	if !p.content {
		return nil, fmt.Errorf("parsing ibv_devinfo output: %w", ErrNoData)
	}
	return &p.out, nil
}

func (p *devinfoParser) line(n, indent int, raw string) {
	s := strings.TrimLeft(strings.TrimSpace(raw), "*")
	if s == "" {
		return
	}
	if p.flagKey != "" {
		if indent > p.flagIndent {
			p.dev.Flags[p.flagKey] = append(p.dev.Flags[p.flagKey], s)
			return
		}
		p.flagKey = ""
	}
	if p.message(n, s) {
		return
	}
	if m := gidAttrRe.FindStringSubmatch(s); m != nil {
		idx, _ := p.out.index(n, "GID index", m[1])
		port := p.currentPort()
		port.GIDs = append(port.GIDs, IndexedGID{Index: idx, GID: m[2], Type: strings.TrimSpace(m[3])})
		return
	}
	key, val, ok := splitKV(s)
	if !ok || !attrKeyRe.MatchString(key) {
		return // shell prompts ("root@host:~# ibv_devinfo"), cut-off lines
	}
	switch {
	case key == "hca_id":
		p.out.Devices = append(p.out.Devices, HCA{ID: val})
		p.dev, p.port = &p.out.Devices[len(p.out.Devices)-1], nil
		p.content = true
	case key == "port":
		num, ok := p.leadingInt(n, key, val)
		if !ok && !p.numeric(val) {
			p.out.Warnings = append(p.out.Warnings, located(n, "port number %q is not a number", val))
		}
		d := p.currentDev()
		d.Ports = append(d.Ports, DevInfoPort{Port: num})
		p.port = &d.Ports[len(d.Ports)-1]
		p.content = true
	case p.port != nil || portKeys[key]:
		p.portAttr(n, p.currentPort(), key, val)
		p.content = true
	default:
		p.devAttr(n, indent, p.currentDev(), key, val)
		p.content = true
	}
}

// message records ibv_devinfo's and libibverbs' own messages; it reports
// whether s was one.
func (p *devinfoParser) message(n int, s string) bool {
	switch {
	case noDevicesRe.MatchString(s):
		p.out.NoDevices, p.out.NoDevicesLine = true, s
	case devErrorRe.MatchString(s):
		p.out.Errors = append(p.out.Errors, located(n, "%s", s))
	case libWarnRe.MatchString(s):
		p.out.LibWarnings = append(p.out.LibWarnings, strings.TrimPrefix(s, "libibverbs: Warning: "))
	default:
		return false
	}
	p.content = true
	return true
}

// currentDev returns the device being read, starting a Partial one when the
// capture began inside a block.
func (p *devinfoParser) currentDev() *HCA {
	if p.dev == nil {
		p.out.Devices = append(p.out.Devices, HCA{Partial: true})
		p.dev = &p.out.Devices[len(p.out.Devices)-1]
	}
	return p.dev
}

func (p *devinfoParser) currentPort() *DevInfoPort {
	if p.port == nil {
		d := p.currentDev()
		d.Ports = append(d.Ports, DevInfoPort{})
		p.port = &d.Ports[len(d.Ports)-1]
	}
	return p.port
}

// numeric reports whether val starts with something numeric (then a bad
// number, not text, when it does not read).
func (p *devinfoParser) numeric(val string) bool {
	f := strings.Fields(val)
	return len(f) > 0 && numeric(f[0])
}

func (p *devinfoParser) number(n int, key, val string) int {
	v, ok := p.leadingInt(n, key, val)
	if !ok && val != "" && !p.numeric(val) {
		p.out.Warnings = append(p.out.Warnings, located(n, "%s %q is not a number", key, val))
	}
	return v
}

func (p *devinfoParser) devAttr(n, indent int, d *HCA, key, val string) {
	switch key {
	case "transport":
		d.Transport = val
	case "fw_ver":
		d.FWVer = val
	case "node_guid":
		d.NodeGUID = val
	case "sys_image_guid":
		d.SysImageGUID = val
	case "vendor_id":
		d.VendorID = val
	case "vendor_part_id":
		d.VendorPartID = p.number(n, key, val)
	case "hw_ver":
		d.HWVer = val
	case "board_id":
		d.BoardID = val
	case "phys_port_cnt":
		d.PhysPortCnt = p.number(n, key, val)
	default:
		if d.Attrs == nil {
			d.Attrs = map[string]string{}
		}
		d.Attrs[key] = val
		if strings.HasSuffix(key, "flags") {
			if d.Flags == nil {
				d.Flags = map[string][]string{}
			}
			p.flagKey, p.flagIndent = key, indent
		}
	}
}

func (p *devinfoParser) portAttr(n int, port *DevInfoPort, key, val string) {
	switch key {
	case "state":
		port.State = enumName(val)
	case "max_mtu":
		port.MaxMTU = p.number(n, key, val)
	case "active_mtu":
		port.ActiveMTU = p.number(n, key, val)
	case "sm_lid":
		port.SMLID = p.number(n, key, val)
	case "port_lid":
		port.PortLID = p.number(n, key, val)
	case "port_lmc":
		port.LMC = val
	case "link_layer":
		port.LinkLayer = val
	case "active_width":
		port.ActiveWidth = val
	case "active_speed":
		port.ActiveSpeed = val
	case "phys_state":
		port.PhysState = enumName(val)
	default:
		if port.Attrs == nil {
			port.Attrs = map[string]string{}
		}
		port.Attrs[key] = val
	}
}
