"""The `tile` dialect: buffer type, ops (specs with their verifiers and traits, OpViews over the unregistered
`tile` namespace), builders, IR helpers (ir_utils), verifier."""
