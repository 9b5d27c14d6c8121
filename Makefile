# Build, install and package forecastd, with the GNU conventions.
#
#   make                          the release build, man pages and completions (as you: never as root)
#   sudo make install             into /usr/local (prefix=..., or PREFIX=..., and DESTDIR=... for staging)
#   make install-user             into ~/.local, without root; the user unit goes to ~/.local/share/systemd/user
#   sudo make uninstall           removes what install put there (a settings file you edited stays)
#   make uninstall-user
#   make deb                      forecastd_VERSION_ARCH.deb for this machine's Debian
#   make check-install            install, uninstall and read the installed files in scratch folders (needs root)
#   make check-package            the .deb installed and removed in clean Debian 12 and 13 roots (needs root)
#
# The build lives in .build-release; `make install` builds first only when nothing was built yet, so
# `make && sudo make install` compiles as you and only copies as root.

PREFIX = /usr/local
prefix = $(PREFIX)
exec_prefix = $(prefix)
bindir = $(exec_prefix)/bin
datarootdir = $(prefix)/share
datadir = $(datarootdir)
mandir = $(datarootdir)/man
# forecastd reads /etc/forecastd/forecastd.toml whatever the prefix (and $XDG_CONFIG_HOME for a
# user), so the example settings file goes where it is read rather than to $(prefix)/etc.
sysconfdir = /etc
# systemd looks in /usr/lib, /usr/local/lib and ~/.local/share; for another prefix, point these at
# /etc/systemd/system and ~/.config/systemd/user.
systemdsystemunitdir = $(prefix)/lib/systemd/system
systemduserunitdir = $(prefix)/lib/systemd/user
bashcompletiondir = $(datadir)/bash-completion/completions
zshcompletiondir = $(datadir)/zsh/site-functions
fishcompletiondir = $(datadir)/fish/vendor_completions.d
DESTDIR =

# Where scripts/release puts what it built (binaries, gazetteer, man pages, completions).
RELEASE_DIR = .build-release/dist

# Every directory install and uninstall need, passed to scripts/install by name.
install_dirs = DESTDIR='$(DESTDIR)' bindir='$(bindir)' datadir='$(datadir)' mandir='$(mandir)' \
	sysconfdir='$(sysconfdir)' systemdsystemunitdir='$(systemdsystemunitdir)' \
	systemduserunitdir='$(systemduserunitdir)' bashcompletiondir='$(bashcompletiondir)' \
	zshcompletiondir='$(zshcompletiondir)' fishcompletiondir='$(fishcompletiondir)' \
	release='$(RELEASE_DIR)'

# A user's install: everything under ~/.local, the settings example in ~/.config, no system unit.
user_home = $(or $(XDG_DATA_HOME),$(HOME)/.local/share)
user_dirs = prefix='$(HOME)/.local' datadir='$(user_home)' sysconfdir='$(or $(XDG_CONFIG_HOME),$(HOME)/.config)' \
	systemdsystemunitdir= systemduserunitdir='$(user_home)/systemd/user'

.PHONY: all release install install-user uninstall uninstall-user deb check-install check-package clean

all: release

release:
	scripts/release

# Built once; a later `make` rebuilds what changed.
$(RELEASE_DIR)/.complete:
	scripts/release

install: $(RELEASE_DIR)/.complete
	@scripts/install install $(install_dirs)

uninstall:
	@scripts/install uninstall $(install_dirs)

install-user:
	@$(MAKE) --no-print-directory install $(user_dirs)

uninstall-user:
	@$(MAKE) --no-print-directory uninstall $(user_dirs)

deb: $(RELEASE_DIR)/.complete
	scripts/package-deb

check-install: $(RELEASE_DIR)/.complete
	scripts/check-install

check-package:
	scripts/check-package

clean:
	rm -rf $(RELEASE_DIR)
