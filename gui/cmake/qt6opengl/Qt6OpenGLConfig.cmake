# Minimal Qt6OpenGL package: the installed library as Qt6::OpenGL (see
# ../qt6_opengl_fallback.cmake). The workbench does not use QtOpenGL itself;
# Qt6Charts and Qt6OpenGLWidgets link it.
if(NOT TARGET Qt6::OpenGL)
  find_package(Qt6Gui 6 REQUIRED CONFIG)
  add_library(Qt6::OpenGL SHARED IMPORTED)
  set_target_properties(Qt6::OpenGL PROPERTIES
    IMPORTED_LOCATION "${SHARDLAB_QT6_OPENGL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SHARDLAB_QT6_OPENGL_INCLUDE_DIR}/QtOpenGL"
    INTERFACE_LINK_LIBRARIES Qt6::Gui)
endif()
# Qt's own packages also define the versionless name, which Qt6Charts links.
if(NOT TARGET Qt::OpenGL)
  add_library(Qt::OpenGL INTERFACE IMPORTED)
  set_target_properties(Qt::OpenGL PROPERTIES INTERFACE_LINK_LIBRARIES Qt6::OpenGL)
endif()
set(Qt6OpenGL_FOUND TRUE)
