# Writes OUTPUT, a C++ fragment holding the page's style and script (the
# real files CSS and JS) as raw string literals: the page stays one
# self-contained file, the assets stay files people edit and lint.
file(READ ${CSS} css)
file(READ ${JS} js)
foreach(text css js)
  string(FIND "${${text}}" ")hwagent_asset\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${text} holds the raw string's delimiter")
  endif()
endforeach()
file(WRITE ${OUTPUT}
  "// Generated from ${CSS} and ${JS} by EmbedAssets.cmake.\n"
  "static const char kStyle[] = R\"hwagent_asset(${css})hwagent_asset\";\n"
  "static const char kScript[] = R\"hwagent_asset(${js})hwagent_asset\";\n")
