// Package vendorcheck runs fabricctl's switch and subnet-manager renders
// through the checkers their vendors publish: SONiC's YANG models (libyang's
// yanglint on CONFIG_DB translated the way sonic-yang-mgmt translates it),
// Juniper's configuration YANG (set statements translated to XML), Arista
// AVD's eos_cli_config_gen schema and templates, NVIDIA's NVUE OpenAPI
// schema, and the real OpenSM.
//
// The models, schemas and templates are third-party files read from a
// directory given by the caller (../shared/validators in the tests), never
// copied into the repository. Cases enumerates what is checked: every
// switch of every example fabric, and generated fabrics that reach every
// platform model and profile option.
package vendorcheck
