//===- Assets.cpp - the page's style and script ---------------------------===//
//
// assets/report.css and assets/report.js, embedded at build time
// (EmbedAssets.cmake) so that the page is one self-contained file.
//
//===----------------------------------------------------------------------===//

#include "Page.h"

#include "Assets.inc"

const char *hwreport::html::style() { return kStyle; }
const char *hwreport::html::script() { return kScript; }
