package fabric

// InfiniBandFabric is the fabric's declared InfiniBand cabling
// (spec.infiniband of the fabric file): the IB switches the subnet manager
// configures, every cable between node ports, and the width and speed every
// link must train to. The IB switches are not targets (spec.switches holds
// the Ethernet switches fabricctl configures); hosts and subnet managers are
// the channel-adapter nodes.
//
//	infiniband:
//	  vantage: ib-h1            # the host whose agent reads the subnet (check --suite ib)
//	  linkWidth: 4X
//	  linkSpeed: EDR
//	  switches: [{name: leaf-01, guid: "0x0008f10400000201", ports: 36}]
//	  links:
//	    - endpoints: [ib-h1:1, leaf-01:1]
//	    - {endpoints: [leaf-01:7, spine-01:1], width: 4X, speed: HDR}
//
// fabricctl extension.
type InfiniBandFabric struct {
	// Vantage is the host (a spec.hosts name) whose agent runs the
	// InfiniBand diagnostics of `fabricctl check --suite ib`; empty: the
	// first host the cabling names (Fabric.IBVantage).
	Vantage string `yaml:"vantage,omitempty" json:"vantage,omitempty"`
	// LinkWidth is every link's width unless the link says otherwise.
	LinkWidth string `yaml:"linkWidth,omitempty" json:"linkWidth,omitempty" enum:"1X,2X,4X,8X,12X"`
	// LinkSpeed is every link's lane speed unless the link says otherwise.
	LinkSpeed string `yaml:"linkSpeed,omitempty" json:"linkSpeed,omitempty" enum:"SDR,DDR,QDR,FDR10,FDR,EDR,HDR,NDR,XDR"`
	// Switches are the InfiniBand switches.
	Switches []IBSwitch `yaml:"switches,omitempty" json:"switches,omitempty"`
	// Links are the cables: NODE:PORT pairs.
	Links []IBLink `yaml:"links,omitempty" json:"links,omitempty"`
}

// IBSwitch is an InfiniBand switch of the subnet. It is found on the wire
// by its node GUID when one is given, else by its NodeDescription (which
// must then be its name).
type IBSwitch struct {
	Name string `yaml:"name" json:"name"`
	// GUID is the switch's node GUID, 0x and 16 hex digits.
	GUID string `yaml:"guid,omitempty" json:"guid,omitempty"`
	// Ports is the number of external ports (36 on a QM8700 or SB7800).
	Ports int `yaml:"ports" json:"ports"`
}

// IBLink is one InfiniBand cable. Each endpoint is NODE:PORT with a numeric
// port: a switch (spine-01:7), a host's HCA port (ib-h1:1, or
// ib-h1/mlx5_1:1 on a host with several HCAs) or a subnet manager's
// (sm-01:1).
type IBLink struct {
	Endpoints []string `yaml:"endpoints" json:"endpoints"`
	// Width and Speed override the fabric's linkWidth and linkSpeed.
	Width string `yaml:"width,omitempty" json:"width,omitempty" enum:"1X,2X,4X,8X,12X"`
	Speed string `yaml:"speed,omitempty" json:"speed,omitempty" enum:"SDR,DDR,QDR,FDR10,FDR,EDR,HDR,NDR,XDR"`
}
