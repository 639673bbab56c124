# shardlab_library(NAME [DEPS ...] [PRIVATE_DEPS ...])
# One library per component folder: headers in include/shardlab/<name>/,
# sources in src/. Every .cc under src/ is compiled.
function(shardlab_library name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.cc")
  add_library(shardlab_${name} STATIC ${sources})
  add_library(shardlab::${name} ALIAS shardlab_${name})
  # include/: the library's interface; src/: headers shared by its own sources only.
  target_include_directories(shardlab_${name} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include"
                                              PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
  target_link_libraries(shardlab_${name} PUBLIC shardlab_flags ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# shardlab_test(NAME DIR [DEPS ...]): one GoogleTest binary from every .cc in DIR.
function(shardlab_test name dir)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cc")
  if(NOT sources)
    return()  # component without tests yet
  endif()
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    SHARDLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SHARDLAB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${name})
endfunction()
