"""Where a registry made by `skillyard init-registry` takes its reusable workflows from, pinned by commit SHA.

A caller pins a full SHA (not a tag or branch) so that a push to this repository can never change what runs in
another registry's CI. After a commit that changes `.github/workflows/reusable-*.yml` lands, set WORKFLOWS_REF to
that commit in a follow-up commit (see CONTRIBUTING.md, "Releasing"); a test checks that the pinned commit exists
and that its reusable workflows accept every input the caller templates pass.
"""

WORKFLOWS_REPOSITORY = "skillyard/registry"
WORKFLOWS_REF = "23babe243908937f621a2a1b1423fae907f042f6"
