// Package vendorcheck runs fabricctl's switch renders through the checkers
// their vendors publish, so that what the vendor's own tooling would
// refuse is found here first:
//
//   - SONiC: CONFIG_DB translated into YANG instance data by the rules of
//     sonic-yang-mgmt's sonic_yang_ext (LoadSONiCSchema, SONiCSchema.Check)
//     and validated by libyang's yanglint against sonic-buildimage's
//     models, after the render is patched onto a real base CONFIG_DB
//     (PatchSONiC) or merged as `config load` would (MergeSONiC);
//   - Junos: set statements translated to XML along Juniper's compiled
//     configuration YANG of the model's family, classic QFX or Junos OS
//     Evolved (LoadJunosSchema), and validated by yanglint;
//   - EOS: the intent as Arista AVD structured configuration
//     (EOSStructuredConfig), checked against AVD's eos_cli_config_gen
//     schema and rendered by AVD's own templates (AVD.CheckEOS, a Python
//     driver of ours run by Debian's python3 with jinja2), then diffed
//     line by line with our CLI (CompareEOS);
//   - NVUE: every `nv set` line decided by the paths, types, enums and
//     ranges of NVIDIA's OpenAPI schema (nvue_facts.go, with provenance;
//     CheckNVUE walks a full openapi.json too, where one is at hand).
//
// OpenSM's partitions.conf renders are judged by the real OpenSM in the
// InfiniBand lab (lab/iblab), not here.
//
// Yanglint compiles modules into Node trees and validates XML instance
// data (Elem). The models, schemas and templates are third-party files read
// from a directory given by the caller (../shared/validators in the tests,
// or $FABRICCTL_VALIDATORS), never copied into the repository; in CI a
// missing one fails the test. Cases enumerates what is checked: every
// switch of every example fabric, the example profiles and generated
// Variants on every model of the platform.
package vendorcheck
