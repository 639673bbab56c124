# The fallback stands for the installed Qt (6.x): any 6.x request matches
# the version of Qt6Gui it links.
set(PACKAGE_VERSION "${PACKAGE_FIND_VERSION}")
if(PACKAGE_FIND_VERSION_MAJOR EQUAL 6)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  set(PACKAGE_VERSION_EXACT TRUE)
else()
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
endif()
