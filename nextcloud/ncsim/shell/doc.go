// Package shell is the page shell of the Nextcloud simulator (package
// ncsim): the HTML templates, stylesheet, theme variables, icons and
// scripts that imitate Nextcloud's web pages for the demo and the browser
// tests. It holds no state and knows nothing of the simulator: ncsim's page
// handlers gather each page's data (users, files, registered ExApp UI) and
// render it with the functions here, so the protocol fake reads without
// the markup and the markup without the protocol.
//
// Comments name the Nextcloud templates and scripts each page follows.
package shell
