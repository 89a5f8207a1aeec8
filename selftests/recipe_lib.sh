# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# recipe_lib.sh: run doc/operate.md's recipes as written (sourced by
# dkms_install.sh and operate_recipes.sh, after lib.sh).  A recipe is a
# shell block of the page (tools/doc_recipes.py); it runs in "bash -e",
# as root, with Debian's own tc and the packaged plugins: the operator's
# shell on the router, not the test VM's patched tc.

RECIPE_REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
OPERATE_MD=$RECIPE_REPO/doc/operate.md
DOC_RECIPES=$RECIPE_REPO/tools/doc_recipes.py

# vm-guest.sh puts build/tc first on PATH and points TC_LIB_DIR at its
# plugins: an operator has neither.
recipe_env()
{
	local p out=

	unset TC_LIB_DIR
	for p in ${PATH//:/ }; do
		case $p in "$RECIPE_REPO"/build/*) continue ;; esac
		out=${out:+$out:}$p
	done
	export PATH=$out
	export DEBIAN_FRONTEND=noninteractive
}

# run_recipe NAME [DIR]: the page's recipe NAME, from DIR, its commands
# and their output indented on stdout, within RECIPE_TIMEOUT seconds
# (600).  The status is the recipe's (124: it timed out).
run_recipe()
{
	local name=$1 dir=${2:-$PWD} code

	code=$(python3 -S "$DOC_RECIPES" "$OPERATE_MD" show "$name") || return 1
	log_info "recipe $name (doc/operate.md):"
	sed 's/^/INFO:   $ /' <<<"$code"
	(cd "$dir" && timeout "${RECIPE_TIMEOUT:-600}" bash -e -o pipefail -c "$code") 2>&1 |
		sed -u 's/^/    | /'
	return "${PIPESTATUS[0]}"
}
