# Qt6Charts depends on the Qt6OpenGL CMake package. Some Debian installs ship
# the Qt6OpenGL library and headers but not its CMake package files, and
# find_package(Qt6 COMPONENTS Charts) then fails. When that happens and the
# library is there, point Qt6OpenGL_DIR at a minimal package
# (qt6opengl/Qt6OpenGLConfig.cmake) that imports the installed library.
# Included by the top-level CMakeLists.txt before it looks for Qt6.
find_package(Qt6OpenGL 6 QUIET CONFIG)
if(NOT Qt6OpenGL_FOUND)
  find_library(SHARDLAB_QT6_OPENGL_LIBRARY NAMES Qt6OpenGL libQt6OpenGL.so.6)
  find_path(SHARDLAB_QT6_OPENGL_INCLUDE_DIR NAMES QtOpenGL/qtopenglexports.h PATH_SUFFIXES qt6 x86_64-linux-gnu/qt6
            aarch64-linux-gnu/qt6)
  if(SHARDLAB_QT6_OPENGL_LIBRARY AND SHARDLAB_QT6_OPENGL_INCLUDE_DIR)
    message(STATUS "Qt6OpenGL CMake package missing: importing ${SHARDLAB_QT6_OPENGL_LIBRARY} for Qt6Charts")
    set(Qt6OpenGL_DIR "${CMAKE_CURRENT_LIST_DIR}/qt6opengl" CACHE PATH "Qt6OpenGL package (ShardLab fallback)" FORCE)
  endif()
endif()
