"""The `tile` dialect: buffer type, ops (OpViews over the unregistered `tile` namespace), verifier."""
