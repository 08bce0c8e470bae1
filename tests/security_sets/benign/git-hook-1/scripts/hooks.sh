#!/bin/bash
cat > .git/hooks/pre-commit <<'EOF'
#!/bin/sh
npm test
EOF
chmod +x .git/hooks/pre-commit
