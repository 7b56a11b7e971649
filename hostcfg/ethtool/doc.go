// Package ethtool issues the SIOCETHTOOL ioctls fabricctl needs, with
// golang.org/x/sys/unix only: 802.3x pause parameters (ethtool -a / -A) and
// the driver name and bus address (ethtool -i).
//
//	c, err := ethtool.Open()                  // or OpenNetns("/run/netns/h1")
//	defer c.Close()
//	p, err := c.Pause(ctx, "ens1f0np0")       // struct ethtool_pauseparam
//	err = c.SetPause(ctx, "ens1f0np0", ethtool.Pause{})   // global pause off
//
// Drivers without pause operations (veth, virtio_net) answer EOPNOTSUPP,
// which errors.Is finds in the returned error; hostcfg reports that as
// "unsupported". The socket belongs to the network namespace it was opened
// in. A Conn is safe for concurrent use.
package ethtool
